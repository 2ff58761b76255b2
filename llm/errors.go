package llm

import (
	"errors"
	"fmt"
)

// ErrMalformed is wrapped by decoders when input is not valid for the format.
var ErrMalformed = errors.New("llm: malformed input")

// BadRequestError says which field of a caller's request is wrong.
type BadRequestError struct {
	Field  string // JSON path, e.g. "messages[2].content"
	Reason string
}

func (e *BadRequestError) Error() string {
	if e.Field == "" {
		return "llm: bad request: " + e.Reason
	}
	return fmt.Sprintf("llm: bad request: %s: %s", e.Field, e.Reason)
}

// Unwrap makes errors.Is(err, ErrMalformed) true.
func (e *BadRequestError) Unwrap() error { return ErrMalformed }
