package anthropic

import "errors"

// ErrStreamTruncated is returned by a stream decoder when the upstream stream
// ends before its message_stop event.
var ErrStreamTruncated = errors.New("anthropic: stream ended before message_stop")
