package gateway

import (
	"context"

	"time"

	"github.com/google/uuid"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/dispatch"
)

// ErrorCoder maps an error to the HTTP status and <group>.<code> the caller
// received; the HTTP layer's error table provides it for request records.
type ErrorCoder func(err error) (status int, code string)

// accountStage fills the served target, usage, cost (by the Pricer that
// also prices the attempts), baseline and savings into the record of a turn
// that reached dispatch, whether or not it then failed. The cost includes
// the turn's handover summary call, when one was served upstream: the
// budgets settle what the turn spent, and the savings are net of it.
type accountStage struct{ pricer Pricer }

func (a accountStage) finish(_ context.Context, p *pass, _ error) {
	a.turn(p)
	if st := p.res.sessionOrNil(); st != nil {
		// Read once: a summary that outlived its handover deadline may still
		// store its result, and the credits stage must see the same one.
		p.summary = st.summary.Load()
	}
	if sum := p.summary; sum != nil && sum.Shared == dispatch.SharedNone {
		c := a.pricer.CostMicros(sum.Served, sum.Usage)
		p.rec.CostMicros += c
		p.rec.SavingsMicros -= c
	}
}

// turn accounts for the turn's own call (its turnCost).
func (a accountStage) turn(p *pass) {
	res, r, rec := p.result, p.res, p.rec
	if res == nil || r == nil {
		return
	}
	rec.ServedModel, rec.Provider, rec.Fallback = res.Served.Model, res.Served.Provider, res.FallbackUsed
	rec.BaselineModel = r.baseline.ID
	if r.decision != nil {
		cs := make([]analytics.Candidate, len(r.decision.Scores))
		for i, sc := range r.decision.Scores {
			cs[i] = analytics.Candidate{Model: sc.Model, Score: sc.Score}
		}
		rec.Candidates = analytics.FormatCandidates(cs)
	}
	if res.Interrupted != "" {
		// A committed stream that failed: the decision note keeps why (the
		// error code says that it did, see gateway/httpapi's error table).
		rec.Decision += " interrupted:" + string(res.Interrupted)
	}
	if res.Shared != dispatch.SharedNone {
		// An idempotent duplicate (a join of the operation in flight or a
		// replay of its stored answer) made no upstream call: the owner's
		// turn carries the tokens and the cost, this one is noted as
		// "idempotent:join" or "idempotent:replay" and costs nothing, so
		// nothing is settled for it either.
		rec.Decision += " idempotent:" + string(res.Shared)
		return
	}
	rec.Attempts = res.Attempts
	rec.TTFBMs = float64(res.TTFB.Microseconds()) / 1000
	u := res.Usage
	rec.InputTokens, rec.OutputTokens = int64(u.Input), int64(u.Output)
	rec.CacheRead, rec.CacheWrite, rec.Reasoning = int64(u.CacheRead), int64(u.CacheWrite), int64(u.Reasoning)
	actual, baseline := a.pricer.CostMicros(res.Served, u), int64(billing.Cost(u, r.baseline.Price))
	rec.CostMicros, rec.BaselineMicros, rec.SavingsMicros = actual, baseline, baseline-actual
	p.turnCost = actual
}

// recordStage stamps latency, outcome and session id (the one the pin
// used) and hands the record to the recorder.
type recordStage struct {
	recorder Recorder
	classify ErrorCoder
}

func (s recordStage) finish(_ context.Context, p *pass, err error) {
	rec := p.rec
	rec.LatencyMs = float64(time.Since(p.t.Received).Microseconds()) / 1000
	rec.Session = p.sessionID()
	if rec.RequestedModel == "" && p.req == nil {
		// Refused before decoding (rate limit, budget): the record still
		// names the model asked for.
		rec.RequestedModel = requestedModel(p.t)
	}
	if err != nil {
		rec.Status, rec.ErrorCode = s.classify(err)
	}
	s.recorder.RecordRequest(*rec)
}

// AttemptSink converts dispatch attempt events, priced by the executor's
// Pricer, into analytics rows.
type AttemptSink struct{ Recorder Recorder }

var _ dispatch.Sink = AttemptSink{}

// RecordAttempt forwards the attempt; it does no I/O beyond the Recorder's
// own non-blocking call.
func (a AttemptSink) RecordAttempt(e dispatch.AttemptEvent) {
	a.Recorder.RecordAttempt(analytics.Attempt{
		EventID: e.EventID, Time: e.Time, OrgID: e.OrgID, KeyID: e.KeyID, RequestID: e.RequestID,
		OperationID: e.OperationID, Purpose: string(e.Provenance.Purpose), PolicyID: e.Provenance.PolicyID,
		BundleID: e.Provenance.BundleID, BundleRevision: e.Provenance.BundleRevision,
		AttemptIndex: e.AttemptIndex, Model: e.Target.Model, Provider: e.Target.Provider,
		Upstream: e.Target.Upstream, CredentialID: e.CredentialID, Outcome: string(e.Outcome),
		Reason: string(e.Reason), Status: e.Status,
		LatencyMs: float64(e.Latency.Microseconds()) / 1000, TTFBMs: float64(e.TTFB.Microseconds()) / 1000,
		InputTokens: int64(e.Usage.Input), OutputTokens: int64(e.Usage.Output),
		CacheRead: int64(e.Usage.CacheRead), CacheWrite: int64(e.Usage.CacheWrite),
		Reasoning: int64(e.Usage.Reasoning), Stream: e.Stream, CostMicros: e.CostMicros,
	})
}

func newID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}

// NewRequestID returns a fresh request id.
func NewRequestID() string { return "req_" + newID() }
