package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/heddle-gw/heddle/analytics"
)

func TestConsoleRequestsExplorer(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	org := v.signup("explorer@example.com")
	var rows []analytics.Request
	for i := range 30 {
		rows = append(rows, request(org, fmt.Sprintf("req-%02d", i), time.Duration(30-i)*time.Minute, "gpt-5-mini", "routed", 200, "", 1000, 3000))
	}
	rows = append(rows,
		request(org, "req-fail", 31*time.Minute, "", "explicit", 502, "dispatch.attempts_exhausted", 0, 0),
		request("other-org", "req-foreign", time.Minute, "gpt-5", "explicit", 200, "", 5, 5))
	if err := f.reader.InsertRequests(context.Background(), rows); err != nil {
		t.Fatal(err)
	}

	full := v.get("/requests", nil)
	if full.status != 200 || !full.isFullPage() || full.tid("requests-filter").Length() != 1 {
		t.Fatalf("explorer page: %d", full.status)
	}
	links := full.doc.Find(`[data-testid^="request-link-"]`)
	if links.Length() != 25 || links.First().AttrOr("href", "") != "/requests/req-29" {
		t.Fatalf("first page: %d rows, first %q", links.Length(), links.First().AttrOr("href", ""))
	}
	next := full.tid("requests-next")
	hxNext := next.AttrOr("hx-get", "")
	if hxNext == "" || next.AttrOr("hx-target", "") != "#request-results" || next.AttrOr("href", "") != hxNext {
		t.Fatalf("pager: %v", next.Nodes)
	}
	if full.tid("requests-first").Length() != 0 {
		t.Error("the first page links to the first page")
	}
	if strings.Contains(full.body, "req-foreign") {
		t.Error("another organisation's request is listed")
	}

	p2 := v.get(hxNext, htmx)
	if p2.status != 200 || p2.isFullPage() || p2.tid("requests-filter").Length() != 0 {
		t.Fatalf("htmx page 2: %d full %v", p2.status, p2.isFullPage())
	}
	got := p2.doc.Find(`[data-testid^="request-link-"]`).Map(func(_ int, s *goquery.Selection) string { return s.AttrOr("href", "") })
	want := []string{"/requests/req-04", "/requests/req-03", "/requests/req-02", "/requests/req-01", "/requests/req-00", "/requests/req-fail"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("page 2 = %v, want %v", got, want)
	}
	if p2.tid("requests-next").Length() != 0 || p2.tid("requests-first").Length() != 1 {
		t.Error("page 2 pager is wrong")
	}
	failed := p2.tid("request-row-req-fail")
	if !failed.HasClass("failed") || strings.TrimSpace(failed.Find(`[data-testid="request-status"]`).Text()) != "502" ||
		!strings.Contains(failed.Text(), "dispatch.attempts_exhausted") {
		t.Errorf("failed row: %s", failed.Text())
	}
	row := p2.tid("request-row-req-04")
	if !strings.Contains(row.Text(), "$0.001000") || !strings.Contains(row.Text(), "$0.002000") || !strings.Contains(row.Text(), "100 in / 20 out") {
		t.Errorf("row cost/savings/tokens: %s", row.Text())
	}

	for _, tc := range []struct {
		name, query string
		want        int
		status      int
	}{
		{"errors only", "?errors=1", 1, 200},
		{"model", "?model=gpt-5-mini", 25, 200},
		{"route", "?route=explicit", 1, 200},
		{"no match", "?model=nope", 0, 200},
		{"bad cursor", "?cursor=%%%", 0, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := v.get("/requests"+tc.query, htmx)
			if p.status != tc.status || p.isFullPage() {
				t.Fatalf("status %d full %v", p.status, p.isFullPage())
			}
			if n := p.doc.Find(`[data-testid^="request-link-"]`).Length(); n != tc.want {
				t.Errorf("%d rows, want %d", n, tc.want)
			}
			if tc.status == 400 && p.tid("requests-error").Length() != 1 {
				t.Errorf("no error shown: %s", p.body)
			}
			if tc.want == 0 && tc.status == 200 && p.tid("requests-empty").Length() != 1 {
				t.Error("no empty note")
			}
		})
	}
}

func TestConsoleTimeline(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	org := v.signup("timeline@example.com")
	ctx := context.Background()
	r := request(org, "req-t", time.Minute, "claude-haiku", "routed", 200, "", 400, 300)
	r.Fallback, r.Attempts = true, 2
	if err := f.reader.InsertRequests(ctx, []analytics.Request{r, request("other-org", "req-x", time.Minute, "gpt-5", "explicit", 200, "", 1, 1)}); err != nil {
		t.Fatal(err)
	}
	at := consoleNow.Add(-time.Minute)
	err := f.reader.InsertAttempts(ctx, []analytics.Attempt{
		{EventID: "a2", Time: at.Add(time.Second), OrgID: org, RequestID: "req-t", OperationID: "op-1", Purpose: "main", AttemptIndex: 1,
			Model: "claude-haiku", Provider: "anthropic", Upstream: "claude-haiku-4-5", Outcome: "served", Status: 200, LatencyMs: 800, TTFBMs: 300, CostMicros: 400},
		{EventID: "a1", Time: at, OrgID: org, RequestID: "req-t", OperationID: "op-1", Purpose: "main", AttemptIndex: 0,
			Model: "gpt-5-mini", Provider: "openai", Upstream: "gpt-5-mini", Outcome: "failed", Reason: "upstream_5xx", Status: 503, LatencyMs: 50},
	})
	if err != nil {
		t.Fatal(err)
	}
	p := v.get("/requests/req-t", nil)
	if p.status != 200 || !p.isFullPage() {
		t.Fatalf("timeline: %d %s", p.status, p.body)
	}
	for id, want := range map[string]string{
		"timeline-request-id": "req-t", "timeline-requested": "gpt-5", "timeline-served": "claude-haiku openai",
		"timeline-route": "routed", "timeline-decision": "cluster 3 picked claude-haiku", "timeline-cost": "$0.000400",
		"timeline-savings": "-$0.000100", "timeline-status": "200", "timeline-error": "none",
	} {
		if got := p.text(id); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	if !p.tid("timeline-savings").HasClass("neg") {
		t.Error("negative savings are not marked")
	}
	attempts := p.doc.Find(`[data-testid="timeline-attempts"] tbody tr`)
	if attempts.Length() != 2 {
		t.Fatalf("%d attempt rows", attempts.Length())
	}
	for i, want := range []struct{ index, outcome, reason, status, provider string }{
		{"0", "failed", "upstream_5xx", "503", "openai / gpt-5-mini"},
		{"1", "served", "-", "200", "anthropic / claude-haiku-4-5"},
	} {
		row := attempts.Eq(i)
		got := func(id string) string { return strings.TrimSpace(row.Find(`[data-testid="` + id + `"]`).Text()) }
		if got("attempt-index") != want.index || got("attempt-outcome") != want.outcome || got("attempt-reason") != want.reason ||
			got("attempt-status") != want.status || got("attempt-provider") != want.provider {
			t.Errorf("attempt %d = %q %q %q %q %q, want %+v", i, got("attempt-index"), got("attempt-outcome"), got("attempt-reason"),
				got("attempt-status"), got("attempt-provider"), want)
		}
	}
	for _, id := range []string{"req-x", "no-such-request"} {
		if p := v.get("/requests/"+id, nil); p.status != 404 || p.tid("error-panel").Length() != 1 {
			t.Errorf("%s answered %d", id, p.status)
		}
	}
}

func TestConsoleDashboard(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	org := v.signup("dash@example.com")
	ctx := context.Background()
	err := f.reader.InsertRequests(ctx, []analytics.Request{
		request(org, "d1", time.Hour, "gpt-5-mini", "routed", 200, "", 1000, 4000),
		request(org, "d2", 2*time.Hour, "gpt-5", "explicit", 200, "", 6000, 5000),
		request(org, "d3", 49*time.Hour, "", "explicit", 502, "dispatch.attempts_exhausted", 0, 0),
		request(org, "old", 8*24*time.Hour, "gpt-5", "explicit", 200, "", 999999, 0), // outside the 7 days
		request("other-org", "x1", time.Hour, "gpt-5", "explicit", 200, "", 777777, 0),
	})
	if err != nil {
		t.Fatal(err)
	}
	err = f.reader.InsertAttempts(ctx, []analytics.Attempt{
		{EventID: "fa", Time: consoleNow.Add(-49 * time.Hour), OrgID: org, RequestID: "d3", OperationID: "op", Outcome: "failed", Reason: "timeout", Status: 0},
	})
	if err != nil {
		t.Fatal(err)
	}
	p := v.get("/dashboard", nil)
	if p.status != 200 {
		t.Fatalf("dashboard: %d %s", p.status, p.body)
	}
	for id, want := range map[string]string{
		"stat-requests": "3", "stat-spend": "$0.007000", "stat-baseline": "$0.009000", "stat-savings": "$0.002000",
		"stat-error-rate": "33.3%", "stat-cache-rate": "0.0%", "stat-p50": "120 ms", "stat-p95": "120 ms",
		"dashboard-period": "Last 7 days: 2026-11-23 to now (UTC)",
	} {
		if got := p.text(id); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	days := p.tid("breakdown-day").Find("tbody tr")
	if days.Length() != 7 || !strings.HasPrefix(strings.TrimSpace(days.Last().Text()), "2026-11-29") {
		t.Errorf("day rows: %d, last %q", days.Length(), days.Last().Text())
	}
	if n := p.tid("chart-spend-savings").Find("rect").Length(); n != 14 {
		t.Errorf("chart has %d bars, want 7 days x 2", n)
	}
	if p.tid("breakdown-model-gpt-5").Length() != 1 || p.tid("breakdown-model-gpt-5-mini").Length() != 1 || p.tid("breakdown-model-none").Length() != 1 {
		t.Errorf("model breakdown: %s", p.tid("breakdown-model").Text())
	}
	if neg := p.tid("breakdown-model-gpt-5").Find("td.neg"); strings.TrimSpace(neg.Text()) != "-$0.001000" {
		t.Errorf("negative savings of gpt-5 shown as %q", neg.Text())
	}
	if r := p.tid("breakdown-route-explicit").Find("td"); strings.TrimSpace(r.Eq(1).Text()) != "2" {
		t.Errorf("explicit route requests %q", r.Eq(1).Text())
	}
	if fr := p.tid("failure-timeout"); fr.Length() != 1 || strings.TrimSpace(fr.Find("td").Eq(1).Text()) != "1" {
		t.Errorf("failure reasons: %s", p.tid("breakdown-failure").Text())
	}

	// Negative total savings are shown as such.
	if err := f.reader.InsertRequests(ctx, []analytics.Request{request(org, "d4", 3*time.Hour, "gpt-5", "explicit", 200, "", 10000, 1000)}); err != nil {
		t.Fatal(err)
	}
	p = v.get("/dashboard", nil)
	if got := p.text("stat-savings"); got != "-$0.007000" || !p.tid("stat-savings").HasClass("neg") {
		t.Errorf("negative savings shown as %q (class %q)", got, p.tid("stat-savings").AttrOr("class", ""))
	}
}
