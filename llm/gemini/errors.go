package gemini

import (
	"errors"
	"fmt"

	"github.com/heddle-gw/heddle/llm"
)

// ErrTruncated is returned by the stream decoder when the stream ends without
// a finishReason: the connection was cut before Gemini finished.
var ErrTruncated = errors.New("gemini: stream ended without a finish reason")

// badRequest builds the error every decoder returns for invalid input.
func badRequest(field, reason string) error {
	return &llm.BadRequestError{Field: field, Reason: reason}
}

// badRequestf is badRequest with a formatted reason.
func badRequestf(field, format string, args ...any) error {
	return badRequest(field, fmt.Sprintf(format, args...))
}
