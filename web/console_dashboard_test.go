package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

func TestConsoleDashboardLatencyAndCache(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	org := v.signup("latency@example.com")
	withLat := func(r analytics.Request, ms float64, hit bool) analytics.Request {
		r.LatencyMs, r.CacheHit = ms, hit
		return r
	}
	err := f.reader.InsertRequests(context.Background(), []analytics.Request{
		withLat(request(org, "t1", time.Hour, "gpt-5-mini", "routed", 200, "", 10, 20), 100, false),
		withLat(request(org, "t2", 2*time.Hour, "gpt-5-mini", "cache", 200, "", 0, 20), 2, true),
		withLat(request(org, "t3", 3*time.Hour, "gpt-5-mini", "routed", 200, "", 10, 20), 300, false),
		withLat(request(org, "t4", 4*time.Hour, "gpt-5", "cache", 200, "", 0, 20), 6, true),
		withLat(request(org, "y1", 25*time.Hour, "gpt-5", "explicit", 200, "", 10, 20), 1500, false),
		withLat(request("other-org", "o1", time.Hour, "gpt-5", "cache", 200, "", 0, 0), 99999, true),
	})
	if err != nil {
		t.Fatal(err)
	}
	p := v.get("/dashboard", nil)
	if p.status != 200 {
		t.Fatalf("dashboard: %d", p.status)
	}
	if got := p.text("stat-cache-hits"); got != "2" {
		t.Errorf("cache hits %q, want 2", got)
	}
	if got := p.text("stat-cache-rate"); got != "40.0%" {
		t.Errorf("cache hit rate %q, want 40.0%%", got)
	}
	today, yesterday := p.tid("breakdown-day-2026-11-29"), p.tid("breakdown-day-2026-11-28")
	if got := strings.TrimSpace(today.Find(`[data-testid="cache-hits"]`).Text()); got != "2 (50.0%)" {
		t.Errorf("today's cache hits %q", got)
	}
	if got := strings.TrimSpace(today.Find(`[data-testid="latency-mean"]`).Text()); got != "102 ms" {
		t.Errorf("today's mean latency %q, want 102 ms", got)
	}
	if got := strings.TrimSpace(yesterday.Find(`[data-testid="latency-mean"]`).Text()); got != "1500 ms" {
		t.Errorf("yesterday's mean latency %q", got)
	}
	if got := strings.TrimSpace(p.tid("breakdown-day-2026-11-27").Find(`[data-testid="latency-mean"]`).Text()); got != "-" {
		t.Errorf("a day without requests shows latency %q", got)
	}
	if got := strings.TrimSpace(p.tid("breakdown-route-cache").Find(`[data-testid="cache-hits"]`).Text()); got != "2 (100.0%)" {
		t.Errorf("cache route's hits %q", got)
	}
	// The latency chart: one group per day, bars only for days with requests,
	// the taller bar for the slower day.
	chart := p.tid("chart-latency")
	if n := chart.Find("g").Length(); n != 7 {
		t.Errorf("latency chart has %d days, want 7", n)
	}
	if n := chart.Find("rect").Length(); n != 2 {
		t.Errorf("latency chart has %d bars, want 2", n)
	}
	hToday, hYesterday := chart.Find(`[data-testid="chart-latency-11-29"] rect`).AttrOr("height", ""), chart.Find(`[data-testid="chart-latency-11-28"] rect`).AttrOr("height", "")
	if hYesterday != "108" || hToday != "7" {
		t.Errorf("bar heights: yesterday %q (the tallest, full plot), today %q (102/1500 of it)", hYesterday, hToday)
	}
	if got := strings.TrimSpace(chart.Find(`[data-testid="chart-latency-11-29"] title`).Text()); got != "11-29: 102 ms" {
		t.Errorf("bar title %q", got)
	}
}

// TestConsoleDashboardRange: the range picker's presets and a custom range
// choose the period (the per-day table has a row per day of it); a bad
// range re-renders with 422; savings are explained and split by source.
func TestConsoleDashboardRange(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	org := v.signup("range@example.com")
	err := f.reader.InsertRequests(context.Background(), []analytics.Request{
		request(org, "r1", time.Hour, "gpt-5-mini", "routed", 200, "", 100, 900),
		request(org, "c1", 2*time.Hour, "gpt-5-mini", "cache", 200, "", 0, 300),
		request(org, "p1", 10*24*time.Hour, "gpt-5", "pinned", 200, "", 500, 600),
		request(org, "old", 40*24*time.Hour, "gpt-5", "routed", 200, "", 1, 1000),
	})
	if err != nil {
		t.Fatal(err)
	}
	days := func(p *page) int { return p.tid("breakdown-day").Find("tbody tr").Length() }
	for _, tt := range []struct {
		name, query  string
		wantDays     int
		wantRequests string
		wantPeriod   string
	}{
		{"default is 7 days", "", 7, "2", "Last 7 days: 2026-11-23 to now (UTC)"},
		{"24 hours", "?range=24h", 2, "2", "Last 24 hours: 2026-11-28 15:00 to now (UTC)"},
		{"30 days", "?range=30d", 30, "3", "Last 30 days: 2026-10-31 to now (UTC)"},
		{"custom", "?range=custom&from=2026-10-01&to=2026-10-31", 31, "1", "2026-10-01 to 2026-10-31 (UTC, both included)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := v.get("/dashboard"+tt.query, nil)
			if p.status != 200 {
				t.Fatalf("status %d", p.status)
			}
			if got := days(p); got != tt.wantDays {
				t.Errorf("%d days, want %d", got, tt.wantDays)
			}
			if got := p.text("stat-requests"); got != tt.wantRequests {
				t.Errorf("requests %q, want %q", got, tt.wantRequests)
			}
			if got := p.text("dashboard-period"); got != tt.wantPeriod {
				t.Errorf("period %q, want %q", got, tt.wantPeriod)
			}
		})
	}
	p := v.get("/dashboard?range=30d", nil)
	if got := p.text("baseline-model"); got != "claude-sonnet-4-5" {
		t.Errorf("baseline model %q", got)
	}
	for src, want := range map[string][2]string{
		"routed": {"$0.000800", "66.7%"}, "cache": {"$0.000300", "25.0%"}, "pinned": {"$0.000100", "8.3%"}, "explicit": {"$0.00", "0.0%"},
	} {
		row := p.tid("source-" + src)
		got := [2]string{strings.TrimSpace(row.Find(`[data-testid="source-savings"]`).Text()), strings.TrimSpace(row.Find(`[data-testid="source-share"]`).Text())}
		if got != want {
			t.Errorf("source %s: %v, want %v", src, got, want)
		}
	}
	if n := p.tid("chart-savings-source").Find("g").Length(); n != 4 {
		t.Errorf("savings-by-source chart has %d groups, want 4", n)
	}
	bad := v.get("/dashboard?range=custom&from=2026-11-29&to=2026-11-01", nil)
	if bad.status != 422 || !strings.Contains(bad.text("dashboard-error"), "To must not be before from") {
		t.Errorf("bad range: %d %q", bad.status, bad.text("dashboard-error"))
	}
}
