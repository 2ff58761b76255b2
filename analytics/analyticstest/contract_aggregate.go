package analyticstest

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

func summaryOf(t *testing.T, r analytics.Reader, org string, from, to time.Time) analytics.Summary {
	t.Helper()
	sum, err := r.Summary(ctx(t), org, from, to)
	if err != nil {
		t.Fatalf("Summary(%s): %v", org, err)
	}
	return sum
}

func sameSummary(got, want analytics.Summary) bool {
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	rates := near(got.CacheHitRate, want.CacheHitRate) && near(got.ErrorRate, want.ErrorRate)
	got.CacheHitRate, got.ErrorRate, want.CacheHitRate, want.ErrorRate = 0, 0, 0, 0
	return rates && got == want
}

func testSummary(t *testing.T, s analytics.Store, r analytics.Reader) {
	load(t, s)
	tests := []struct {
		name     string
		org      string
		from, to time.Time
		want     analytics.Summary
	}{
		{"all time", OrgA, time.Time{}, time.Time{}, analytics.Summary{
			Requests: 7, Errors: 2, CacheHits: 1, InputTokens: 650, OutputTokens: 270,
			CostMicros: 10500, BaselineMicros: 19000, SavingsMicros: 8500,
			CacheHitRate: 1.0 / 7, ErrorRate: 2.0 / 7,
			LatencyP50: 100, LatencyP95: 900, LatencyP99: 900, TTFBP50: 40, TTFBP95: 120, TTFBP99: 120,
		}},
		{"second day, negative savings kept", OrgA, T0.Add(day), T0.Add(2 * day), analytics.Summary{
			Requests: 2, Errors: 1, InputTokens: 300, OutputTokens: 120,
			CostMicros: 6000, BaselineMicros: 5000, SavingsMicros: -1000, ErrorRate: 0.5,
			LatencyP50: 900, LatencyP95: 900, LatencyP99: 900, TTFBP50: 120, TTFBP95: 120, TTFBP99: 120,
		}},
		{"first hour, no TTFB", OrgA, T0.Add(time.Hour), T0.Add(2 * time.Hour), analytics.Summary{
			Requests: 1, InputTokens: 200, OutputTokens: 80, CostMicros: 3000, BaselineMicros: 3000,
			LatencyP50: 200, LatencyP95: 200, LatencyP99: 200,
		}},
		{"empty range", OrgA, T0.Add(-day), T0, analytics.Summary{}},
		{"other org", OrgB, time.Time{}, time.Time{}, analytics.Summary{
			Requests: 2, Errors: 1, InputTokens: 7, OutputTokens: 7, CostMicros: 99999, BaselineMicros: 99999,
			ErrorRate: 0.5, LatencyP50: 7000, LatencyP95: 7000, LatencyP99: 7000,
			TTFBP50: 2000, TTFBP95: 2000, TTFBP99: 2000,
		}},
		{"org without rows", OrgC, time.Time{}, time.Time{}, analytics.Summary{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := summaryOf(t, r, tt.org, tt.from, tt.to); !sameSummary(got, tt.want) {
				t.Errorf("\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// testPercentiles checks the quantile definition on 100 latencies 1..100:
// index floor(q*n), so p50 = 51, p95 = 96, p99 = 100; the 50 positive TTFBs
// are 4, 8, ..., 200: p50 = 104, p95 = 192, p99 = 200.
func testPercentiles(t *testing.T, s analytics.Store, r analytics.Reader) {
	load(t, s)
	got := summaryOf(t, r, OrgP, time.Time{}, time.Time{})
	want := analytics.Summary{
		Requests: 100, CostMicros: 100, LatencyP50: 51, LatencyP95: 96, LatencyP99: 100,
		TTFBP50: 104, TTFBP95: 192, TTFBP99: 200,
	}
	if !sameSummary(got, want) {
		t.Errorf("\n got %+v\nwant %+v", got, want)
	}
}

func testBreakdown(t *testing.T, s analytics.Store, r analytics.Reader) {
	load(t, s)
	// lat is the mean latency of the group's requests (see OrgARequests).
	row := func(key string, req, errs, hits, atts, in, out, cost, base int64, lat float64) analytics.BreakdownRow {
		return analytics.BreakdownRow{Key: key, Requests: req, Errors: errs, CacheHits: hits, Attempts: atts,
			InputTokens: in, OutputTokens: out, CostMicros: cost, BaselineMicros: base, SavingsMicros: base - cost,
			LatencyMeanMs: lat}
	}
	r5 := row("", 1, 0, 0, 1, 300, 120, 6000, 5000, 300)
	tests := []struct {
		name     string
		by       analytics.Dimension
		from, to time.Time
		want     []analytics.BreakdownRow
	}{
		{"day", analytics.DimDay, time.Time{}, time.Time{}, []analytics.BreakdownRow{
			row("2026-11-27", 3, 0, 1, 3, 300, 130, 4000, 10000, 310.0/3),
			row("2026-11-28", 2, 1, 0, 4, 300, 120, 6000, 5000, 600),
			row("2026-11-29", 2, 1, 0, 1, 50, 20, 500, 4000, 25.5),
		}},
		{"day in range", analytics.DimDay, T0.Add(day), time.Time{}, []analytics.BreakdownRow{
			row("2026-11-28", 2, 1, 0, 4, 300, 120, 6000, 5000, 600),
			row("2026-11-29", 2, 1, 0, 1, 50, 20, 500, 4000, 25.5),
		}},
		{"model", analytics.DimModel, time.Time{}, time.Time{}, []analytics.BreakdownRow{
			row("gpt-5-mini", 3, 0, 1, 2, 150, 70, 1500, 11000, 160.0/3),
			row("", 2, 2, 0, 3, 0, 0, 0, 0, 450.5),
			row("claude-sonnet", 1, 0, 0, 2, 200, 80, 3000, 3000, 200),
			{Key: "gpt-5", Requests: 1, Attempts: 1, InputTokens: 300, OutputTokens: 120, CostMicros: 6000, BaselineMicros: 5000, SavingsMicros: -1000, LatencyMeanMs: 300},
		}},
		{"key", analytics.DimKey, time.Time{}, time.Time{}, []analytics.BreakdownRow{
			row("key-1", 4, 1, 0, 4, 600, 250, 10000, 13000, 150.25),
			row("key-2", 3, 1, 1, 4, 50, 20, 500, 6000, 320),
		}},
		{"user", analytics.DimUser, time.Time{}, time.Time{}, []analytics.BreakdownRow{
			row("alice", 3, 1, 0, 3, 300, 130, 4000, 8000, 301.0/3),
			row("bob", 2, 1, 1, 3, 0, 0, 0, 2000, 455),
			r5,
			row("carol", 1, 0, 0, 1, 50, 20, 500, 4000, 50),
		}},
		{"route kind", analytics.DimRouteKind, time.Time{}, time.Time{}, []analytics.BreakdownRow{
			row("routed", 4, 1, 1, 2, 150, 70, 1500, 11000, 40.25),
			row("explicit", 2, 1, 0, 5, 200, 80, 3000, 3000, 550),
			{Key: "pinned", Requests: 1, Attempts: 1, InputTokens: 300, OutputTokens: 120, CostMicros: 6000, BaselineMicros: 5000, SavingsMicros: -1000, LatencyMeanMs: 300},
		}},
		{"empty range", analytics.DimKey, T0.Add(-day), T0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Breakdown(ctx(t), OrgA, tt.from, tt.to, tt.by)
			if err != nil {
				t.Fatal(err)
			}
			assertRows(t, got, tt.want)
		})
	}
}

func testFailureReasons(t *testing.T, s analytics.Store, r analytics.Reader) {
	load(t, s)
	tests := []struct {
		name     string
		org      string
		from, to time.Time
		want     []analytics.BreakdownRow
	}{
		{"all time", OrgA, time.Time{}, time.Time{}, []analytics.BreakdownRow{
			{Key: "upstream_5xx", Requests: 2, Attempts: 2, CostMicros: 12},
			{Key: "provider_not_configured", Requests: 1, Attempts: 1},
			{Key: "upstream_rate_limited", Requests: 1, Attempts: 1},
		}},
		{"first day", OrgA, time.Time{}, T0.Add(day), []analytics.BreakdownRow{
			{Key: "upstream_5xx", Requests: 1, Attempts: 1, CostMicros: 7},
		}},
		{"other org", OrgB, time.Time{}, time.Time{}, []analytics.BreakdownRow{
			{Key: "upstream_5xx", Requests: 1, Attempts: 1},
			{Key: "upstream_auth", Requests: 1, Attempts: 1},
		}},
		{"org without rows", OrgC, time.Time{}, time.Time{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Breakdown(ctx(t), tt.org, tt.from, tt.to, analytics.DimFailureReason)
			if err != nil {
				t.Fatal(err)
			}
			assertRows(t, got, tt.want)
		})
	}
}

// testFailureReasonFirstAttempt: a request counts once under a reason
// however many of its attempts failed with it, in the range that holds the
// first of them, when its attempts arrive in separate batches and are
// replayed; every attempt counts in its own range.
func testFailureReasonFirstAttempt(t *testing.T, s analytics.Store, r analytics.Reader) {
	failureReasonFirstAttempt(t, s, r, false)
}

// testFailureReasonFirstAttemptFresh is testFailureReasonFirstAttempt with
// the batches that hold no replayed row inserted through the store's
// FreshInserter.
func testFailureReasonFirstAttemptFresh(t *testing.T, s analytics.Store, r analytics.Reader) {
	if _, ok := s.(analytics.FreshInserter); !ok {
		t.Skip("the store has no FreshInserter")
	}
	failureReasonFirstAttempt(t, s, r, true)
}

func failureReasonFirstAttempt(t *testing.T, s analytics.Store, r analytics.Reader, fresh bool) {
	at := func(ev string, i int, offset time.Duration, reason string) analytics.Attempt {
		return analytics.Attempt{EventID: ev, Time: T0.Add(offset), OrgID: OrgC, RequestID: "req-straddle",
			OperationID: "op", AttemptIndex: i, Outcome: "failed", Reason: reason, Status: 503, CostMicros: int64(i + 1)}
	}
	// Attempts 0 and 1 before the hour, 2 and 3 after it; 4 another reason.
	batches := [][]analytics.Attempt{
		{at("fr-0", 0, 59*time.Minute, "upstream_5xx")},
		{at("fr-1", 1, 59*time.Minute+30*time.Second, "upstream_5xx"), at("fr-2", 2, 61*time.Minute, "upstream_5xx")},
		{at("fr-0", 0, 59*time.Minute, "upstream_5xx"), at("fr-3", 3, 62*time.Minute, "upstream_5xx"),
			at("fr-4", 4, 63*time.Minute, "transport")},
		{at("fr-2", 2, 61*time.Minute, "upstream_5xx")},
	}
	for i, b := range batches {
		insert := s.InsertAttempts
		if f, ok := s.(analytics.FreshInserter); ok && fresh && i < 2 {
			insert = f.InsertFreshAttempts
		}
		if err := insert(ctx(t), b); err != nil {
			t.Fatal(err)
		}
	}
	hour := T0.Add(time.Hour)
	for _, tt := range []struct {
		name     string
		from, to time.Time
		want     []analytics.BreakdownRow
	}{
		{"all time", time.Time{}, time.Time{}, []analytics.BreakdownRow{
			{Key: "upstream_5xx", Requests: 1, Attempts: 4, CostMicros: 10},
			{Key: "transport", Requests: 1, Attempts: 1, CostMicros: 5},
		}},
		{"before the hour", time.Time{}, hour, []analytics.BreakdownRow{
			{Key: "upstream_5xx", Requests: 1, Attempts: 2, CostMicros: 3},
		}},
		{"after the hour", hour, time.Time{}, []analytics.BreakdownRow{
			{Key: "upstream_5xx", Requests: 0, Attempts: 2, CostMicros: 7},
			{Key: "transport", Requests: 1, Attempts: 1, CostMicros: 5},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Breakdown(ctx(t), OrgC, tt.from, tt.to, analytics.DimFailureReason)
			if err != nil {
				t.Fatal(err)
			}
			assertRows(t, got, tt.want)
		})
	}
}

func assertRows(t *testing.T, got, want []analytics.BreakdownRow) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d rows %+v, want %d %+v", len(got), got, len(want), want)
	}
	for i := range want {
		g, w := got[i], want[i]
		// Means are floating point: stores may round the last bit differently.
		near := math.Abs(g.LatencyMeanMs-w.LatencyMeanMs) < 1e-6
		g.LatencyMeanMs, w.LatencyMeanMs = 0, 0
		if !near || g != w {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

// testBreakdownWindows checks that EachBreakdown streams Breakdown's rows,
// in its order, for every window of offset and limit; that fn's error stops
// it; and that a negative offset is refused.
func testBreakdownWindows(t *testing.T, s analytics.Store, r analytics.Reader) {
	load(t, s)
	for _, by := range analytics.Dimensions {
		if by == analytics.DimTag {
			continue // OrgA has no tags: testTagBreakdown checks the windows of tags
		}
		checkWindows(t, r, OrgA, by)
	}
	err := r.EachBreakdown(ctx(t), OrgA, analytics.BreakdownQuery{By: analytics.DimModel, Offset: -1}, func(analytics.BreakdownRow) error { return nil })
	wantErr(t, "negative offset", err, analytics.ErrInvalidPage)
	err = r.EachBreakdown(ctx(t), "", analytics.BreakdownQuery{By: analytics.DimModel}, func(analytics.BreakdownRow) error { return nil })
	wantErr(t, "no organisation", err, analytics.ErrOrgRequired)
}

// checkWindows checks that EachBreakdown streams Breakdown's rows of org by
// by, in its order, for every window of offset and limit, and that fn's
// error stops it. org needs at least 2 groups.
func checkWindows(t *testing.T, r analytics.Reader, org string, by analytics.Dimension) {
	t.Helper()
	all, err := r.Breakdown(ctx(t), org, time.Time{}, time.Time{}, by)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 2 {
		t.Fatalf("%s: %d rows; the fixture should give at least 2", by, len(all))
	}
	for offset := 0; offset <= len(all); offset++ {
		for limit := 0; limit <= len(all)+1; limit++ {
			q := analytics.BreakdownQuery{By: by, Offset: offset, Limit: limit}
			var got []analytics.BreakdownRow
			if err := r.EachBreakdown(ctx(t), org, q, func(row analytics.BreakdownRow) error {
				got = append(got, row)
				return nil
			}); err != nil {
				t.Fatalf("%s offset %d limit %d: %v", by, offset, limit, err)
			}
			want := all[offset:]
			if limit > 0 && limit < len(want) {
				want = want[:limit]
			}
			if len(want) == 0 {
				want = nil
			}
			t.Run(fmt.Sprintf("%s/%d+%d", by, offset, limit), func(t *testing.T) { assertRows(t, got, want) })
		}
	}
	stop := errors.New("stop")
	calls := 0
	err = r.EachBreakdown(ctx(t), org, analytics.BreakdownQuery{By: by}, func(analytics.BreakdownRow) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("%s: fn's error gave %v after %d calls; want it after 1", by, err, calls)
	}
}
