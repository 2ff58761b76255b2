package dispatch

import (
	"log/slog"
	"time"

	"github.com/google/uuid"
)

// emit records one attempt event. Every event of an operation gets the next
// index, so the sink sees them in order.
func (w *walk) emit(t Target, credID string, outcome Outcome, reason Reason, a *attempt, latency time.Duration) {
	ev := AttemptEvent{
		EventID:      newEventID(),
		Time:         w.e.clock.Now(),
		Provenance:   w.prov,
		OrgID:        w.meta.OrgID,
		KeyID:        w.meta.KeyID,
		RequestID:    w.meta.RequestID,
		OperationID:  w.meta.OperationID,
		AttemptIndex: w.seq,
		Target:       t,
		CredentialID: credID,
		Outcome:      outcome,
		Reason:       reason,
		Latency:      latency,
		Stream:       w.op.Stream,
	}
	if a != nil {
		ev.Status = a.status
		ev.TTFB = a.ttfb
		ev.Usage = a.usage
		if w.e.pricer != nil && a.usage != (zeroUsage) {
			ev.CostMicros = w.e.pricer.CostMicros(t, a.usage)
		}
	}
	w.seq++
	w.e.sink.RecordAttempt(ev)
}

func newEventID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}

// skip records a target passed over without an upstream call.
func (w *walk) skip(t Target, credID string, r Reason) {
	if w.skips == nil {
		w.skips = make(map[Reason]bool, 2)
	}
	w.skips[r] = true
	w.emit(t, credID, OutcomeSkipped, r, nil, 0)
}

// abort records a target left because the caller went away.
func (w *walk) abort(t Target, credID string) {
	w.emit(t, credID, OutcomeAborted, ReasonCanceled, nil, 0)
}

// fail records a target that failed before any attempt could be made.
func (w *walk) fail(t Target, credID string, f *failure, latency time.Duration) {
	w.last = f
	w.emit(t, credID, OutcomeFailed, f.reason, nil, latency)
}

// failed records a failed attempt (aborted when the caller went away).
func (w *walk) failed(t Target, credID string, a *attempt, latency time.Duration) {
	outcome := OutcomeFailed
	if a.fail.reason == ReasonCanceled || a.fail.reason == ReasonShutdown {
		outcome = OutcomeAborted
	}
	if a.committed {
		w.res.Committed = true
		w.res.Served = t
		w.res.Usage = a.usage
		w.res.TTFB = a.ttfb
		if a.fail.reason == ReasonCommitted {
			w.res.Interrupted = a.fail.cause
		}
	}
	w.emit(t, credID, outcome, a.fail.reason, a, latency)
	level := slog.LevelDebug
	if a.fail.reason == ReasonCommitted {
		level = slog.LevelWarn
	}
	// Only the closed vocabulary and ids: never bodies, prompts or secrets.
	w.e.log.Log(w.ctx, level, "dispatch attempt failed", "request_id", w.meta.RequestID,
		"operation_id", w.meta.OperationID, "attempt", w.seq-1, "provider", t.Provider, "upstream", t.Upstream,
		"reason", string(a.fail.reason), "status", a.status, "latency_ms", latency.Milliseconds())
}

// served records the attempt that served and fills the result.
func (w *walk) served(t Target, credID string, a *attempt, latency time.Duration) {
	w.res.Served = t
	w.res.Committed = a.committed
	w.res.Response = a.resp
	w.res.RawBody = a.raw
	w.res.Usage = a.usage
	w.res.TTFB = a.ttfb
	w.emit(t, credID, OutcomeServed, ReasonNone, a, latency)
}
