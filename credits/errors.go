package credits

import (
	"errors"
	"fmt"
)

// Sentinel errors of hosted billing.
var (
	// ErrInsufficientCredits means the balance, less what is reserved, does
	// not cover a reservation: nothing may be sent upstream.
	ErrInsufficientCredits = errors.New("credits: insufficient credits")
	// ErrNotFound is an unknown plan, reservation or organisation account.
	ErrNotFound = errors.New("credits: not found")
	// ErrNotOperator refuses a platform action to a user who is not an operator.
	ErrNotOperator = errors.New("credits: not an operator")
	// ErrConflict is a plan name already taken.
	ErrConflict = errors.New("credits: conflict")
	// ErrUnavailable means the ledger could not be read or written; money
	// paths fail closed on it.
	ErrUnavailable = errors.New("credits: ledger unavailable")
	// ErrInvalid is bad input; a *FieldError naming the field wraps it.
	ErrInvalid = errors.New("credits: invalid input")
)

// FieldError is bad input naming its field.
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return fmt.Sprintf("credits: %s: %s", e.Field, e.Message) }

// Unwrap returns ErrInvalid.
func (e *FieldError) Unwrap() error { return ErrInvalid }

func invalid(field, msg string) error { return &FieldError{Field: field, Message: msg} }
