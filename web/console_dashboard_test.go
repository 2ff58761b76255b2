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
