package app

import (
	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/llm"
)

// countingRecorder turns the analytics rows of requests and attempts into
// metrics, then forwards every row. It sits where the spans are built (see
// otel_spans.go): the gateway's request records and dispatch's attempt
// events, so the metrics and the analytics agree.
type countingRecorder struct {
	next gateway.Recorder
	m    *metrics
	cat  *catalog.Catalog
}

// recorder wraps next with the metrics of its rows.
func (m *metrics) recorder(next gateway.Recorder, cat *catalog.Catalog) countingRecorder {
	return countingRecorder{next: next, m: m, cat: cat}
}

func (r countingRecorder) RecordAttempt(a analytics.Attempt) {
	provider, model := r.provider(a.Provider), r.model(a.Model)
	r.m.attempts.WithLabelValues(provider, a.Outcome, a.Reason).Inc()
	switch {
	case a.Reason == "circuit_open":
		r.m.circuit.WithLabelValues(provider, model).Set(1)
	case a.Outcome == "served" || a.Outcome == "failed" || a.Outcome == "aborted":
		r.m.circuit.WithLabelValues(provider, model).Set(0)
	}
	if a.Outcome != "skipped" {
		r.m.upstream.WithLabelValues(provider, model, a.Outcome).Observe(a.LatencyMs / 1000)
	}
	for kind, n := range map[string]int64{"input": a.InputTokens, "output": a.OutputTokens,
		"cache_read": a.CacheRead, "cache_write": a.CacheWrite, "reasoning": a.Reasoning} {
		if n > 0 {
			r.m.tokens.WithLabelValues(provider, model, kind).Add(float64(n))
		}
	}
	if a.CostMicros > 0 {
		r.m.cost.WithLabelValues(provider, model).Add(float64(a.CostMicros) / 1e6)
	}
	r.next.RecordAttempt(a)
}

func (r countingRecorder) RecordRequest(q analytics.Request) {
	labels := []string{boundedFormat(q.Format), r.provider(q.Provider), r.model(q.ServedModel), boundedRoute(q.RouteKind), outcomeOf(q.Status)}
	r.m.latency.WithLabelValues(labels...).Observe(q.LatencyMs / 1000)
	if q.TTFBMs > 0 {
		r.m.ttfb.WithLabelValues(labels...).Observe(q.TTFBMs / 1000)
	}
	if q.CacheHit {
		r.m.cacheHit.WithLabelValues(labels[0]).Inc()
	}
	r.next.RecordRequest(q)
}

// model is a catalog model id, "none" or "other" (an organisation's own
// model: unbounded names stay out of the labels).
func (r countingRecorder) model(id string) string {
	if id == "" {
		return "none"
	}
	if r.cat != nil {
		if m, err := r.cat.Lookup(id); err == nil {
			return m.ID
		}
	}
	return "other"
}

// provider is a catalog provider, "none" or "other".
func (r countingRecorder) provider(name string) string {
	if name == "" {
		return "none"
	}
	if r.cat != nil {
		if _, err := r.cat.Provider(name); err == nil {
			return name
		}
	}
	return "other"
}

func boundedFormat(f string) string {
	switch llm.Format(f) {
	case llm.FormatAnthropic, llm.FormatChat, llm.FormatResponses, llm.FormatGemini:
		return f
	case "":
		return "none"
	}
	return "other"
}

func boundedRoute(kind string) string {
	switch kind {
	case "explicit", "routed", "pinned", "cache":
		return kind
	case "":
		return "none"
	}
	return "other"
}

// outcomeOf names a caller status: success, client_error or server_error.
func outcomeOf(status int) string {
	switch {
	case status >= 500:
		return "server_error"
	case status >= 400:
		return "client_error"
	}
	return "success"
}
