package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/dispatch"
)

// TestConsoleProviderHealth: per binding the page shows the attempts of
// the range (24 h by default), the success rate, the latency percentiles
// and the circuit of this replica (the worst of a binding's credentials,
// with when it opened); a circuit without attempts still gets a row, and
// only the caller's organisation's circuits are asked for.
func TestConsoleProviderHealth(t *testing.T) {
	opened := consoleNow.Add(-5 * time.Minute)
	var asked []string
	f := newConsoleFixture(t, func(d *deps) {
		d.Circuits = func(org string) []dispatch.Circuit {
			asked = append(asked, org)
			return []dispatch.Circuit{
				{Model: "gpt-5-mini", Provider: "openai", Upstream: "gpt-5-mini", CredentialID: "c1", State: "closed"},
				{Model: "gpt-5-mini", Provider: "openai", Upstream: "gpt-5-mini", CredentialID: "c2", State: "open", OpenedAt: opened},
				{Model: "gemini-2.5-flash", Provider: "gemini", Upstream: "gemini-2.5-flash", State: "half_open", OpenedAt: opened},
			}
		}
	})
	v := f.visitor()
	org := v.signup("health@example.com")
	att := func(id string, ago time.Duration, provider, model, outcome string, lat float64) analytics.Attempt {
		return analytics.Attempt{EventID: id, Time: consoleNow.Add(-ago), OrgID: org, RequestID: "r-" + id, OperationID: "op",
			Provider: provider, Model: model, Upstream: model, Outcome: outcome, LatencyMs: lat}
	}
	err := f.reader.InsertAttempts(context.Background(), []analytics.Attempt{
		att("a1", time.Hour, "openai", "gpt-5-mini", "served", 100),
		att("a2", 2*time.Hour, "openai", "gpt-5-mini", "served", 200),
		att("a3", 3*time.Hour, "openai", "gpt-5-mini", "failed", 900),
		att("a4", 4*time.Hour, "openai", "gpt-5-mini", "skipped", 0),
		att("a5", time.Hour, "anthropic", "claude-haiku", "served", 300),
		att("old", 3*24*time.Hour, "anthropic", "claude-haiku", "failed", 50),
	})
	if err != nil {
		t.Fatal(err)
	}
	p := v.get("/providers/health", nil)
	if p.status != 200 {
		t.Fatalf("health: %d", p.status)
	}
	cell := func(row, id string) string {
		return strings.TrimSpace(p.tid("health-" + row).Find(`[data-testid="` + id + `"]`).Text())
	}
	for _, want := range []struct{ row, success, p50, p95, failed, skipped, circuit, opened string }{
		{"openai/gpt-5-mini", "66.7%", "200 ms", "900 ms", "1", "1", "open", "2026-11-29 14:55:00"},
		{"anthropic/claude-haiku", "100.0%", "300 ms", "300 ms", "0", "0", "no breaker yet", "-"},
		{"gemini/gemini-2.5-flash", "-", "-", "-", "0", "0", "half open (probing)", "2026-11-29 14:55:00"},
	} {
		got := [7]string{cell(want.row, "health-success"), cell(want.row, "health-p50"), cell(want.row, "health-p95"),
			cell(want.row, "health-failed"), cell(want.row, "health-skipped"), cell(want.row, "health-circuit"), cell(want.row, "health-opened")}
		if got != [7]string{want.success, want.p50, want.p95, want.failed, want.skipped, want.circuit, want.opened} {
			t.Errorf("%s: %v, want %+v", want.row, got, want)
		}
	}
	if len(asked) != 1 || asked[0] != org {
		t.Errorf("circuits asked for %v, want [%s]", asked, org)
	}
	if got := cell("anthropic/claude-haiku", "health-failed"); got != "0" {
		t.Errorf("a failure older than 24 h counted: %q", got)
	}
	week := v.get("/providers/health?range=7d", nil)
	if got := strings.TrimSpace(week.tid("health-anthropic/claude-haiku").Find(`[data-testid="health-failed"]`).Text()); got != "1" {
		t.Errorf("7 days: anthropic failed %q, want 1", got)
	}
	if bad := v.get("/providers/health?range=1y", nil); bad.status != 422 {
		t.Errorf("bad range: %d", bad.status)
	}
}
