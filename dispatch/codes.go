package dispatch

import (
	"context"
	"errors"
)

// ErrorCode names a dispatch error for the x-heddle-error header
// ("<group>.<code>", SPEC §2) and says whether the same request may simply be
// sent again. The HTTP status is the edge's business; the code only
// classifies. It returns ("", false) for errors it does not know.
func ErrorCode(err error) (code string, retryable bool) {
	var ue *UpstreamError
	switch {
	case err == nil:
		return "", false
	case errors.Is(err, ErrDuplicateInFlight):
		return "dispatch.duplicate_in_flight", false
	case errors.Is(err, ErrIdempotencyMismatch):
		return "dispatch.idempotency_mismatch", false
	case errors.Is(err, ErrCommitted):
		return "dispatch.stream_interrupted", false
	case errors.Is(err, ErrAttemptsExhausted):
		return "dispatch.attempts_exhausted", false
	case errors.Is(err, ErrOverloaded):
		return "dispatch.overloaded", true
	case errors.Is(err, ErrCircuitOpen):
		return "dispatch.circuit_open", true
	case errors.Is(err, ErrNotConfigured):
		return "dispatch.provider_not_configured", false
	case errors.Is(err, ErrEmptyPlan):
		return "dispatch.empty_plan", false
	case errors.Is(err, ErrTargetMismatch):
		return "dispatch.target_mismatch", false
	case errors.Is(err, ErrBadOperation):
		return "dispatch.bad_operation", false
	case errors.Is(err, ErrShutdown):
		return "dispatch.shutting_down", true
	case errors.Is(err, context.Canceled):
		return "dispatch.canceled", false
	case errors.Is(err, context.DeadlineExceeded):
		return "dispatch.timeout", true
	case errors.As(err, &ue):
		r := ue.Reason
		if r == ReasonNone {
			r = ClassifyStatus(ue.Status)
		}
		return "upstream." + string(r), false
	}
	return "", false
}
