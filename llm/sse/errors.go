package sse

import "errors"

// ErrTooLarge is returned by Reader.Next when a line or a frame exceeds the
// reader's size limit. The stream cannot be resumed after it.
var ErrTooLarge = errors.New("sse: frame too large")
