package dispatch

import (
	"context"
	"errors"
	"time"
)

// Causes set on an attempt's context when one of its timers fires.
var (
	errFirstByte = errors.New("dispatch: no first byte in time")
	errStall     = errors.New("dispatch: stream stalled")
)

// failure is how one attempt ended when it did not serve.
type failure struct {
	reason     Reason
	status     int
	retryAfter time.Duration
	terminal   bool
	err        error
	// cause is why a committed stream failed (reason is ReasonCommitted).
	cause Reason
}

// classify maps an attempt error to its failure reason. parent is the
// operation's context (the caller's), attempt the attempt's own.
func classify(parent, attempt context.Context, err error) failure {
	f := failure{err: err}
	var ue *UpstreamError
	switch {
	case parent.Err() != nil && errors.Is(context.Cause(parent), ErrShutdown):
		f.reason = ReasonShutdown
	case parent.Err() != nil:
		f.reason = ReasonCanceled
	case errors.Is(context.Cause(attempt), errFirstByte):
		f.reason = ReasonFirstByteTimeout
	case errors.Is(context.Cause(attempt), errStall):
		f.reason = ReasonStreamStall
	case errors.As(err, &ue):
		f.reason = ue.Reason
		if f.reason == ReasonNone {
			f.reason = ClassifyStatus(ue.Status)
		}
		f.status = ue.Status
		f.retryAfter = ue.RetryAfter
		f.terminal = ue.Terminal
	case errors.Is(err, ErrTargetMismatch):
		f.reason = ReasonTargetMismatch
	default:
		f.reason = ReasonTransport
	}
	return f
}

// transient reports whether a failure may succeed if sent again unchanged.
func transient(r Reason) bool {
	switch r {
	case ReasonUpstream5xx, ReasonRateLimited, ReasonTransport, ReasonFirstByteTimeout, ReasonStreamStall:
		return true
	}
	return false
}

// failoverable reports whether the walk may move on to the next target.
func failoverable(r Reason) bool {
	switch r {
	case ReasonModelNotFound, ReasonBillingBlocked, ReasonPrepare, ReasonOverloaded,
		ReasonProviderNotConfigured, ReasonCircuitOpen:
		return true
	}
	return transient(r)
}

// breakerFailure reports whether a failure says something about the health of
// the (target, credential) pair.
func breakerFailure(r Reason) bool {
	return transient(r) || r == ReasonCommitted
}
