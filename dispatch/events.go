package dispatch

import (
	"time"

	"github.com/heddle-gw/heddle/llm"
)

// Outcome is how an attempt ended.
type Outcome string

// Attempt outcomes.
const (
	OutcomeServed  Outcome = "served"
	OutcomeFailed  Outcome = "failed"
	OutcomeSkipped Outcome = "skipped"
	OutcomeAborted Outcome = "aborted"
)

// Reason is the closed vocabulary of failure reasons.
type Reason string

// Failure reasons. Events never carry upstream bodies, only these.
const (
	ReasonNone                  Reason = ""
	ReasonProviderNotConfigured Reason = "provider_not_configured"
	ReasonTargetMismatch        Reason = "target_mismatch"
	ReasonUpstream5xx           Reason = "upstream_5xx"
	ReasonRateLimited           Reason = "upstream_rate_limited"
	ReasonModelNotFound         Reason = "upstream_model_not_found"
	ReasonBillingBlocked        Reason = "upstream_billing_blocked"
	ReasonAuth                  Reason = "upstream_auth"
	ReasonBadRequest            Reason = "upstream_bad_request"
	ReasonTransport             Reason = "transport"
	ReasonFirstByteTimeout      Reason = "first_byte_timeout"
	ReasonStreamStall           Reason = "stream_stall"
	ReasonCanceled              Reason = "canceled"
	// ReasonShutdown: the server shut down during the attempt (the
	// operation's context was cancelled with ErrShutdown).
	ReasonShutdown  Reason = "shutdown"
	ReasonCommitted Reason = "committed"
	// ReasonUpstreamErrorEvent: the upstream ended a committed stream with
	// its own error event (only Result.Interrupted carries it; the attempt's
	// event says ReasonCommitted).
	ReasonUpstreamErrorEvent Reason = "upstream_error_event"
	ReasonCircuitOpen        Reason = "circuit_open"
	ReasonBudgetExhausted    Reason = "attempt_budget_exhausted"
	ReasonPrepare            Reason = "prepare"
	// ReasonOverloaded: the binding's concurrency cap stayed full for the
	// whole bounded wait, so the target was skipped without an upstream call.
	ReasonOverloaded Reason = "overloaded"
)

// AttemptEvent records one upstream attempt. Events of one operation are
// emitted in attempt order.
type AttemptEvent struct {
	EventID      string // unique, so a replay cannot double count
	Time         time.Time
	Provenance   Provenance
	OrgID        string
	KeyID        string
	RequestID    string
	OperationID  string
	AttemptIndex int
	Target       Target
	CredentialID string
	Outcome      Outcome
	Reason       Reason
	Status       int // upstream HTTP status, 0 if none
	Latency      time.Duration
	TTFB         time.Duration
	Usage        llm.Usage
	// CostMicros is the attempt's cost in micro-dollars from Deps.Pricer
	// (0 when no pricer is wired or nothing was served).
	CostMicros int64
	Stream     bool
}

// Sink receives attempt events. RecordAttempt must never block nor fail the
// request: implementations queue and drop (counting drops) when full.
type Sink interface {
	RecordAttempt(e AttemptEvent)
}
