package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/web"
)

// createKey creates a key named name through the console and returns its id.
func createKey(t *testing.T, v *visitor, name string) string {
	t.Helper()
	form := url.Values{"name": {name}, "scopes": {"inference"}, "csrf_token": {v.cookies[web.CSRFCookie]}}
	if p := v.post("/keys", form, nil); p.status != 201 {
		t.Fatalf("create key: %d", p.status)
	}
	return createdKeyID(t, v, name)
}

// TestConsoleExplorerColumnsAndSearch: the explorer shows the key by name,
// the provider, format, stream and fallback; a search by request id opens
// the request (a redirect, HX-Redirect for htmx) or says it is not there.
func TestConsoleExplorerColumnsAndSearch(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	org := v.signup("columns@example.com")
	keyID := createKey(t, v, "ci-bot")
	r := request(org, "req-cols", time.Minute, "claude-haiku", "routed", 200, "", 10, 20)
	r.KeyID, r.Provider, r.Format, r.Stream, r.Fallback = keyID, "anthropic", "anthropic", true, true
	gone := request(org, "req-gone", 2*time.Minute, "gpt-5", "explicit", 200, "", 1, 1)
	gone.KeyID = "deleted-key"
	if err := f.reader.InsertRequests(context.Background(), []analytics.Request{r, gone, request("other-org", "req-foreign", time.Minute, "gpt-5", "explicit", 200, "", 1, 1)}); err != nil {
		t.Fatal(err)
	}
	p := v.get("/requests", nil)
	row := p.tid("request-row-req-cols")
	cell := func(id string) string { return strings.TrimSpace(row.Find(`[data-testid="` + id + `"]`).Text()) }
	if !strings.HasPrefix(cell("request-key"), "ci-bot (rk_") || cell("request-provider") != "anthropic" ||
		cell("request-format") != "anthropic" || cell("request-stream") != "yes" || cell("request-fallback") != "yes" {
		t.Errorf("row: key %q provider %q format %q stream %q fallback %q", cell("request-key"), cell("request-provider"),
			cell("request-format"), cell("request-stream"), cell("request-fallback"))
	}
	if got := strings.TrimSpace(p.tid("request-row-req-gone").Find(`[data-testid="request-key"]`).Text()); got != "deleted-key" {
		t.Errorf("a key no longer listed shows %q, want its id", got)
	}
	if s := v.get("/requests?id=req-cols", nil); s.status != 303 || s.header.Get("Location") != "/requests/req-cols" {
		t.Errorf("search: %d %q", s.status, s.header.Get("Location"))
	}
	if s := v.get("/requests?id=req-cols", htmx); s.status != 204 || s.header.Get("HX-Redirect") != "/requests/req-cols" {
		t.Errorf("htmx search: %d %q", s.status, s.header.Get("HX-Redirect"))
	}
	for _, id := range []string{"req-foreign", "nope"} {
		s := v.get("/requests?id="+id, nil)
		if s.status != 404 || !strings.Contains(s.text("requests-error"), "No request with id "+id) {
			t.Errorf("search for %s: %d %q", id, s.status, s.text("requests-error"))
		}
	}
}

// TestConsoleTimelineWaterfall: the request page names the key, the
// baseline model, the candidates (the served one marked) and lays the
// attempts on a time axis: offsets from the request's arrival, durations,
// the backoff before a same-target retry, a skipped target as a marker.
func TestConsoleTimelineWaterfall(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	org := v.signup("waterfall@example.com")
	keyID := createKey(t, v, "agent")
	t0 := consoleNow.Add(-time.Minute)
	r := request(org, "req-w", time.Minute, "claude-haiku", "routed", 200, "", 400, 300)
	r.KeyID, r.BaselineModel, r.LatencyMs, r.Tags = keyID, "claude-sonnet-4-5", 1500, "ci,team:search"
	r.Candidates = analytics.FormatCandidates([]analytics.Candidate{{Model: "claude-haiku", Score: 0.91}, {Model: "gpt-5-mini", Score: 0.88}})
	ms := time.Millisecond
	atts := []analytics.Attempt{
		// openai fails after 100 ms (started at 0), is retried after a 250 ms
		// backoff and fails again (350..500), the anthropic primary is
		// skipped (circuit open), the fallback serves 600..1400.
		{EventID: "w1", Time: t0.Add(100 * ms), LatencyMs: 100, AttemptIndex: 0, Outcome: "failed", Reason: "upstream_5xx", Status: 503,
			Model: "gpt-5-mini", Provider: "openai", Upstream: "gpt-5-mini"},
		{EventID: "w2", Time: t0.Add(500 * ms), LatencyMs: 150, AttemptIndex: 1, Outcome: "failed", Reason: "upstream_5xx", Status: 503,
			Model: "gpt-5-mini", Provider: "openai", Upstream: "gpt-5-mini"},
		{EventID: "w3", Time: t0.Add(510 * ms), AttemptIndex: 2, Outcome: "skipped", Reason: "circuit_open",
			Model: "claude-haiku", Provider: "anthropic", Upstream: "claude-haiku-4-5"},
		{EventID: "w4", Time: t0.Add(1400 * ms), LatencyMs: 800, AttemptIndex: 3, Outcome: "served", Status: 200,
			Model: "claude-haiku", Provider: "bedrock", Upstream: "claude-haiku-4-5"},
	}
	for i := range atts {
		atts[i].OrgID, atts[i].RequestID, atts[i].OperationID, atts[i].Purpose = org, "req-w", "op", "main"
	}
	if err := f.reader.InsertRequests(context.Background(), []analytics.Request{r}); err != nil {
		t.Fatal(err)
	}
	if err := f.reader.InsertAttempts(context.Background(), atts); err != nil {
		t.Fatal(err)
	}
	p := v.get("/requests/req-w", nil)
	if p.status != 200 {
		t.Fatalf("timeline: %d", p.status)
	}
	if got := p.text("timeline-key"); !strings.HasPrefix(got, "agent (rk_") {
		t.Errorf("key %q", got)
	}
	if got := p.text("timeline-baseline-model"); got != "claude-sonnet-4-5" {
		t.Errorf("baseline model %q", got)
	}
	if got := p.tid("timeline-tags").Find(".tag").Length(); got != 2 {
		t.Errorf("%d tags shown", got)
	}
	if got := strings.TrimSpace(p.tid("candidate-gpt-5-mini").Find(`[data-testid="candidate-score"]`).Text()); got != "0.880" {
		t.Errorf("runner-up score %q", got)
	}
	if !p.tid("candidate-claude-haiku").HasClass("served") || p.tid("candidate-gpt-5-mini").HasClass("served") {
		t.Error("the served candidate is not the one marked")
	}
	if p.tid("candidate-claude-haiku").Find(`[data-testid="candidate-chosen"]`).Length() != 1 {
		t.Error("the best-scored candidate is not marked as the router's choice")
	}
	for _, want := range []struct{ id, outcome, start, dur, gap string }{
		{"w1", "failed", "0", "100", ""},
		{"w2", "failed", "350", "150", "backoff 250 ms"},
		{"w3", "skipped", "510", "0", "gap 10 ms"},
		{"w4", "served", "600", "800", "gap 90 ms"},
	} {
		g := p.tid("wf-" + want.id)
		if g.AttrOr("data-outcome", "") != want.outcome || g.AttrOr("data-start-ms", "") != want.start || g.AttrOr("data-duration-ms", "") != want.dur {
			t.Errorf("%s: outcome %q start %q duration %q, want %+v", want.id, g.AttrOr("data-outcome", ""),
				g.AttrOr("data-start-ms", ""), g.AttrOr("data-duration-ms", ""), want)
		}
		if got := strings.TrimSpace(g.Find(`[data-testid="wf-gap"]`).Text()); got != want.gap {
			t.Errorf("%s: gap %q, want %q", want.id, got, want.gap)
		}
	}
}
