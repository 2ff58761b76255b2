package dispatch

import (
	"errors"
	"fmt"
	"time"
)

// Sentinel errors.
var (
	ErrNotConfigured     = errors.New("dispatch: provider not configured")
	ErrTargetMismatch    = errors.New("dispatch: wire model does not match plan target")
	ErrAttemptsExhausted = errors.New("dispatch: attempts exhausted")
	ErrEmptyPlan         = errors.New("dispatch: empty plan")
	ErrDuplicateInFlight = errors.New("dispatch: duplicate request in flight")
	ErrCircuitOpen       = errors.New("dispatch: circuit open")
	ErrOverloaded        = errors.New("dispatch: concurrency cap reached")
	// ErrIdempotencyMismatch: an Idempotency-Key was reused with a different
	// request body within the window.
	ErrIdempotencyMismatch = errors.New("dispatch: idempotency key reused with a different request")
	// ErrCommitted: a stream failed after its first content reached the
	// client; it was ended with an error event and not retried.
	ErrCommitted = errors.New("dispatch: stream failed after commit")
	// ErrBadOperation: Run was called with an operation it cannot execute
	// (nil request, streaming without a writer, unknown format).
	ErrBadOperation = errors.New("dispatch: bad operation")
	// ErrShutdown is the cause a caller cancels an operation's context with
	// (context.WithCancelCause) when the server is shutting down: attempts
	// end as ReasonShutdown, and a committed stream gets an error event
	// saying so (a plain cancellation means the client left: no event).
	ErrShutdown = errors.New("dispatch: server shutting down")
)

// UpstreamError is a non-2xx answer from a provider. Message is a short,
// truncated upstream message that may be shown to the caller; it is never put
// in events or logs.
type UpstreamError struct {
	Provider   string
	Status     int
	Reason     Reason
	Message    string
	RetryAfter time.Duration
	// Terminal asks the executor to stop the walk now, even when Reason would
	// allow a retry or a failover (e.g. a credential lease that cannot be had).
	Terminal bool
}

func (e *UpstreamError) Error() string {
	return fmt.Sprintf("dispatch: upstream %s: status %d (%s)", e.Provider, e.Status, e.Reason)
}

// ClassifyStatus maps an upstream HTTP status to a failure reason.
func ClassifyStatus(status int) Reason {
	switch {
	case status == 401 || status == 403:
		return ReasonAuth
	case status == 402:
		return ReasonBillingBlocked
	case status == 404:
		return ReasonModelNotFound
	case status == 408 || status >= 500:
		return ReasonUpstream5xx
	case status == 429:
		return ReasonRateLimited
	case status >= 400:
		return ReasonBadRequest
	}
	return ReasonNone
}
