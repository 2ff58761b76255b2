package app

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"go.yaml.in/yaml/v4"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/llm"
)

// discardRecorder ends the recorder chain in tests.
type discardRecorder struct{}

func (discardRecorder) RecordAttempt(analytics.Attempt) {}
func (discardRecorder) RecordRequest(analytics.Request) {}

// exportedMetrics returns the names Heddle exposes, with the _bucket, _sum
// and _count series of histograms, after one request, attempt and refusal
// (a vector exposes nothing until it has a child).
func exportedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	m := newMetrics()
	m.watchWriter(func() analytics.Stats { return analytics.Stats{} })
	r := m.recorder(discardRecorder{}, cat)
	r.RecordAttempt(analytics.Attempt{Provider: "openai", Model: "gpt-5-mini", Outcome: "served", LatencyMs: 10, InputTokens: 5, CostMicros: 3})
	r.RecordAttempt(analytics.Attempt{Provider: "openai", Model: "gpt-5-mini", Outcome: "skipped", Reason: "circuit_open"})
	r.RecordRequest(analytics.Request{Format: "openai_chat", Provider: "openai", ServedModel: "gpt-5-mini", RouteKind: "cache", CacheHit: true, LatencyMs: 12, TTFBMs: 4, Status: 200})
	m.observe(llm.FormatChat, 429, "tenancy.rate_limited", gateway.Served{})
	m.capWait("org", time.Millisecond, false)
	families, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range families {
		names[f.GetName()] = true
		if f.GetType().String() == "HISTOGRAM" {
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				names[f.GetName()+s] = true
			}
		}
	}
	return names
}

// metricRefs are the metric names an expression reads: Heddle's, Go's and
// the process collector's.
var metricRefs = regexp.MustCompile(`\b(?:heddle|go|process)_[a-z0-9_]+\b`)

// TestMonitoringReferencesExportedMetrics: the Grafana dashboard and the
// Prometheus alerts only read metrics Heddle exports.
func TestMonitoringReferencesExportedMetrics(t *testing.T) {
	names := exportedMetrics(t)
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal([]byte(repoFile(t, "deploy/grafana/heddle.json")), &dash); err != nil {
		t.Fatalf("dashboard: %v", err)
	}
	var exprs []string
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	var rules struct {
		Groups []struct {
			Rules []struct {
				Alert string `yaml:"alert"`
				Expr  string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal([]byte(repoFile(t, "deploy/prometheus/alerts.yml")), &rules); err != nil {
		t.Fatalf("alerts: %v", err)
	}
	alerts := 0
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			exprs, alerts = append(exprs, r.Expr), alerts+1
		}
	}
	if len(dash.Panels) < 10 || alerts < 4 {
		t.Fatalf("dashboard has %d panels, alerts %d rules", len(dash.Panels), alerts)
	}
	refs := 0
	for _, e := range exprs {
		for _, ref := range metricRefs.FindAllString(e, -1) {
			refs++
			if !names[ref] {
				t.Errorf("%s is not a metric Heddle exports (in %q)", ref, strings.TrimSpace(e))
			}
		}
	}
	// What the alerts must cover.
	for _, must := range []string{"heddle_sink_spill_bytes", "heddle_circuit_open", "heddle_requests_total", "heddle_refusals_total", "heddle_credit_stale_settled_total"} {
		found := false
		for _, g := range rules.Groups {
			for _, r := range g.Rules {
				found = found || strings.Contains(r.Expr, must)
			}
		}
		if !found {
			t.Errorf("no alert reads %s", must)
		}
	}
	if refs == 0 {
		t.Fatal("no metric references found")
	}
}

// TestMetricLabelsAreBounded: names outside the catalog and vocabularies
// become "other", so that tenants cannot grow the series count.
func TestMetricLabelsAreBounded(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	m := newMetrics()
	r := m.recorder(discardRecorder{}, cat)
	r.RecordRequest(analytics.Request{Format: "openai_chat", Provider: "acme-private", ServedModel: "org-model-123", RouteKind: "explicit", Status: 502, LatencyMs: 5, OrgID: "org_1"})
	r.RecordAttempt(analytics.Attempt{Provider: "acme-private", Model: "org-model-123", Outcome: "failed", LatencyMs: 5, OrgID: "org_1"})
	want := []struct {
		name   string
		labels prometheus.Labels
	}{
		{"heddle_request_duration_seconds", prometheus.Labels{"format": "openai_chat", "provider": "other", "model": "other", "route": "explicit", "outcome": "server_error"}},
		{"heddle_attempt_duration_seconds", prometheus.Labels{"provider": "other", "model": "other", "outcome": "failed"}},
	}
	families, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		found := false
		for _, f := range families {
			if f.GetName() != w.name {
				continue
			}
			for _, mt := range f.GetMetric() {
				got := prometheus.Labels{}
				for _, lp := range mt.GetLabel() {
					got[lp.GetName()] = lp.GetValue()
				}
				if len(got) == len(w.labels) && mt.GetHistogram().GetSampleCount() == 1 {
					match := true
					for k, v := range w.labels {
						match = match && got[k] == v
					}
					found = found || match
				}
			}
		}
		if !found {
			t.Errorf("%s: no series with labels %v and one sample", w.name, w.labels)
		}
	}
}

// value reads one counter or gauge.
func value(t *testing.T, c prometheus.Metric) float64 {
	t.Helper()
	var out dto.Metric
	if err := c.Write(&out); err != nil {
		t.Fatal(err)
	}
	if out.Counter != nil {
		return out.Counter.GetValue()
	}
	return out.Gauge.GetValue()
}

// TestMetricCountersFromRows: refusals come from the caller's error code,
// cache hits, tokens and cost from the rows, the circuit gauge from the
// attempts on a binding.
func TestMetricCountersFromRows(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	m := newMetrics()
	r := m.recorder(discardRecorder{}, cat)
	m.observe(llm.FormatChat, 402, "billing.budget_exceeded", gateway.Served{})
	m.observe(llm.FormatChat, 429, "tenancy.rate_limited", gateway.Served{})
	m.observe(llm.FormatChat, 429, "tenancy.rate_limited", gateway.Served{})
	m.observe(llm.FormatChat, 502, "dispatch.attempts_exhausted", gateway.Served{})
	r.RecordRequest(analytics.Request{Format: "anthropic", RouteKind: "cache", CacheHit: true, Status: 200})
	r.RecordAttempt(analytics.Attempt{Provider: "openai", Model: "gpt-5-mini", Outcome: "skipped", Reason: "circuit_open"})
	if v := value(t, m.circuit.WithLabelValues("openai", "gpt-5-mini")); v != 1 {
		t.Errorf("circuit gauge after a circuit_open skip = %v", v)
	}
	r.RecordAttempt(analytics.Attempt{Provider: "openai", Model: "gpt-5-mini", Outcome: "served", InputTokens: 7, OutputTokens: 3, CostMicros: 2500})
	for _, tc := range []struct {
		name string
		got  prometheus.Metric
		want float64
	}{
		{"budget refusals", m.refusals.WithLabelValues("budget"), 1},
		{"rate-limit refusals", m.refusals.WithLabelValues("rate_limit"), 2},
		{"cache hits", m.cacheHit.WithLabelValues("anthropic"), 1},
		{"input tokens", m.tokens.WithLabelValues("openai", "gpt-5-mini", "input"), 7},
		{"output tokens", m.tokens.WithLabelValues("openai", "gpt-5-mini", "output"), 3},
		{"cost", m.cost.WithLabelValues("openai", "gpt-5-mini"), 0.0025},
		{"circuit closed again", m.circuit.WithLabelValues("openai", "gpt-5-mini"), 0},
	} {
		if v := value(t, tc.got); v != tc.want {
			t.Errorf("%s = %v, want %v", tc.name, v, tc.want)
		}
	}
}
