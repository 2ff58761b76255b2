package openaichat

import "errors"

// ErrStreamTruncated is returned by a stream decoder when the upstream stream
// ends before a finish_reason (or [DONE]) was seen.
var ErrStreamTruncated = errors.New("openaichat: stream ended before it finished")
