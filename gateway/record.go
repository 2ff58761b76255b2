package gateway

import (
	"time"

	"github.com/google/uuid"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch"
)

// ErrorCoder maps an error to the HTTP status and <group>.<code> the caller
// received; the HTTP layer's error table provides it for request records.
type ErrorCoder func(err error) (status int, code string)

func (s *Service) newRecord(t *Turn) *analytics.Request {
	return &analytics.Request{
		EventID: newID(), Time: t.Received, RequestID: t.RequestID,
		OrgID: t.Caller.OrgID, KeyID: t.Caller.KeyID, Format: string(t.Format),
		Session: sessionOf(t), Status: 200,
	}
}

// account fills usage, cost and the served target into the record.
func (s *Service) account(rec *analytics.Request, res *dispatch.Result, r *resolution) {
	if res == nil {
		return
	}
	m := r.baseline
	if served, err := s.d.Catalog.Lookup(res.Served.Model); err == nil {
		m = served
	}
	rec.ServedModel, rec.Provider, rec.Fallback = res.Served.Model, res.Served.Provider, res.FallbackUsed
	rec.Attempts = res.Attempts
	rec.TTFBMs = float64(res.TTFB.Microseconds()) / 1000
	u := res.Usage
	rec.InputTokens, rec.OutputTokens = int64(u.Input), int64(u.Output)
	rec.CacheRead, rec.CacheWrite, rec.Reasoning = int64(u.CacheRead), int64(u.CacheWrite), int64(u.Reasoning)
	sv := billing.Compare(u, bindingPrice(m, res.Served.Provider, res.Served.Upstream), r.baseline.Price)
	rec.CostMicros, rec.BaselineMicros, rec.SavingsMicros = int64(sv.Actual), int64(sv.Baseline), int64(sv.Saved)
}

// finish stamps latency and outcome and hands the record to the recorder.
func (s *Service) finish(rec *analytics.Request, t *Turn, err error) {
	rec.LatencyMs = float64(time.Since(t.Received).Microseconds()) / 1000
	if s.d.Guard != nil && (rec.CostMicros > 0 || rec.InputTokens+rec.OutputTokens > 0) {
		s.d.Guard.Settle(t.Caller, rec.CostMicros, int(rec.InputTokens+rec.OutputTokens+rec.CacheRead+rec.CacheWrite), time.Now())
	}
	if err != nil {
		rec.Status, rec.ErrorCode = 500, "internal.error"
		if s.d.Classify != nil {
			rec.Status, rec.ErrorCode = s.d.Classify(err)
		}
	}
	s.d.Recorder.RecordRequest(*rec)
}

// AttemptSink converts dispatch attempt events into priced analytics rows.
type AttemptSink struct {
	Catalog *catalog.Catalog
	// Prices holds the organisations' own models' prices as their turns
	// resolved them (nil: those attempts cost 0); read from memory only.
	Prices   *PriceMemo
	Recorder Recorder
}

var _ dispatch.Sink = AttemptSink{}

// RecordAttempt prices the attempt at the catalog's current price (or the
// organisation's own model's price) and forwards it; it does no I/O beyond
// the Recorder's own non-blocking call.
func (a AttemptSink) RecordAttempt(e dispatch.AttemptEvent) {
	row := analytics.Attempt{
		EventID: e.EventID, Time: e.Time, OrgID: e.OrgID, KeyID: e.KeyID, RequestID: e.RequestID,
		OperationID: e.OperationID, Purpose: string(e.Provenance.Purpose), PolicyID: e.Provenance.PolicyID,
		BundleID: e.Provenance.BundleID, BundleRevision: e.Provenance.BundleRevision,
		AttemptIndex: e.AttemptIndex, Model: e.Target.Model, Provider: e.Target.Provider,
		Upstream: e.Target.Upstream, CredentialID: e.CredentialID, Outcome: string(e.Outcome),
		Reason: string(e.Reason), Status: e.Status,
		LatencyMs: float64(e.Latency.Microseconds()) / 1000, TTFBMs: float64(e.TTFB.Microseconds()) / 1000,
		InputTokens: int64(e.Usage.Input), OutputTokens: int64(e.Usage.Output),
		CacheRead: int64(e.Usage.CacheRead), CacheWrite: int64(e.Usage.CacheWrite),
		Reasoning: int64(e.Usage.Reasoning), Stream: e.Stream,
	}
	if m, err := a.Catalog.Lookup(e.Target.Model); err == nil {
		row.CostMicros = int64(billing.Cost(e.Usage, bindingPrice(m, e.Target.Provider, e.Target.Upstream)))
	} else if price, ok := a.Prices.get(e.OrgID, e.Target.Model); ok {
		row.CostMicros = int64(billing.Cost(e.Usage, price))
	}
	a.Recorder.RecordAttempt(row)
}

// bindingPrice is the price of m served through the binding to provider's
// upstream id, or m's own price when no binding matches.
func bindingPrice(m catalog.Model, provider, upstream string) catalog.Price {
	for _, b := range m.Bindings {
		if b.Provider == provider && b.Upstream == upstream {
			return catalog.PriceOf(m, b)
		}
	}
	return m.Price
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

// sessionOf returns the caller-supplied session id, if any.
func sessionOf(t *Turn) string {
	for _, h := range []string{"X-Claude-Code-Session-Id", "Session-Id", "X-Heddle-Session"} {
		if v := t.Header.Get(h); v != "" {
			return v
		}
	}
	return ""
}
