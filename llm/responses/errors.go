package responses

import (
	"errors"
	"fmt"

	"github.com/heddle-gw/heddle/llm"
)

// ErrTruncated is returned by the stream decoder when the upstream stream ends
// before a terminal event (response.completed, response.incomplete,
// response.failed or error).
var ErrTruncated = errors.New("responses: stream ended before a terminal event")

// badRequest builds the error every decoder returns for invalid input.
func badRequest(field, reason string) error {
	return &llm.BadRequestError{Field: field, Reason: reason}
}

// badRequestf is badRequest with a formatted reason.
func badRequestf(field, format string, args ...any) error {
	return badRequest(field, fmt.Sprintf(format, args...))
}
