package gateway

import (
	"errors"
	"fmt"
)

// Sentinel errors of the pipeline. The HTTP layer maps them, and the errors of
// the packages the pipeline calls, to statuses and error codes.
var (
	ErrUnauthorized    = errors.New("gateway: unauthorized")
	ErrForbidden       = errors.New("gateway: key lacks the required scope")
	ErrUnknownModel    = errors.New("gateway: unknown model")
	ErrModelNotAllowed = errors.New("gateway: model not allowed by the organisation")
	ErrNoBinding       = errors.New("gateway: no provider binding for the model")
	// ErrNotOnPlan means the organisation's hosted plan does not let its
	// platform credentials serve the model (or, for a routed turn, any
	// eligible model) and no credential of its own does.
	ErrNotOnPlan = errors.New("gateway: model not on the organisation's plan")
	// ErrConfig means New was given a missing collaborator or a bad setting.
	ErrConfig = errors.New("gateway: bad service configuration")
)

// FieldError is a bad-input error naming the request field at fault.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return fmt.Sprintf("gateway: %s: %v", e.Field, e.Err) }

// Unwrap returns the cause.
func (e *FieldError) Unwrap() error { return e.Err }
