package clickhouse_test

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/analyticstest"
)

// TestRollupBreakdownMatchesRaw fills the rollups (their epochs moved back
// so that every row counts as rolled up) and checks that Breakdown by every
// dimension, over ranges aligned to hours and days and not, equals the
// in-memory reference store's answer from the raw rows (Summary too); and that the
// rollups were used.
func TestRollupBreakdownMatchesRaw(t *testing.T) {
	s := openFresh(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Conn().Exec(ctx, "INSERT INTO heddle_rollup_epoch (name, since) SELECT name, toDateTime(0) FROM heddle_rollup_epoch"); err != nil {
		t.Fatal(err)
	}
	s.SetExactQuantiles(0) // percentiles from the latency histogram
	ref := analyticstest.NewStore()
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	var reqs []analytics.Request
	for i := range 2400 {
		reqs = append(reqs, analytics.Request{
			EventID: fmt.Sprintf("ev-%05d", i), Time: t0.Add(time.Duration(i*i%(20*24*60)) * time.Minute).Add(time.Duration(i) * time.Millisecond),
			RequestID: fmt.Sprintf("r-%d", i), OrgID: []string{"org-a", "org-b"}[i%2], KeyID: fmt.Sprintf("k%d", i%3),
			ServedModel: []string{"m1", "m2", "m3"}[i%3], RouteKind: []string{"explicit", "routed", "cache"}[i%3*i%3%3],
			User: fmt.Sprintf("u%d", i%11), Status: []int{200, 200, 200, 502}[i%4], Attempts: 1 + i%2, CacheHit: i%7 == 0,
			InputTokens: int64(i % 300), OutputTokens: int64(i % 70), CostMicros: int64(i % 97), BaselineMicros: int64(i % 130),
			SavingsMicros: int64(i%130 - i%97), LatencyMs: float64(i%400) + 0.5,
		})
	}
	for i := 0; i < len(reqs); i += 600 {
		if err := s.InsertRequests(ctx, reqs[i:i+600]); err != nil {
			t.Fatal(err)
		}
	}
	if err := ref.InsertRequests(ctx, reqs); err != nil {
		t.Fatal(err)
	}
	// Failed attempts: one or two per failed request, some an hour apart.
	var atts []analytics.Attempt
	for i, r := range reqs {
		if i%3 == 0 {
			continue
		}
		for j := range 1 + i%2 {
			atts = append(atts, analytics.Attempt{
				EventID: fmt.Sprintf("%s-a%d", r.EventID, j), Time: r.Time.Add(time.Duration(j*i%90) * time.Minute),
				OrgID: r.OrgID, RequestID: r.RequestID, OperationID: r.RequestID + "/0", AttemptIndex: j,
				Outcome: "failed", Reason: []string{"upstream_5xx", "transport", "upstream_rate_limited"}[(i+j)%3],
				Status: 503, CostMicros: int64(i % 13),
			})
		}
	}
	if err := s.InsertAttempts(ctx, atts); err != nil {
		t.Fatal(err)
	}
	if err := ref.InsertAttempts(ctx, atts); err != nil {
		t.Fatal(err)
	}
	var epochs uint64
	if err := s.Conn().QueryRow(ctx, "SELECT count() FROM heddle_rollup_epoch").Scan(&epochs); err != nil {
		t.Fatal(err)
	}
	// A range of whole grains reads the rollups' rows, not the raw ones.
	for _, c := range []struct {
		tables []string
		by     analytics.Dimension
		days   int
	}{
		{[]string{"requests_hourly"}, analytics.DimModel, 3},
		{[]string{"requests_daily_user"}, analytics.DimUser, 3},
		{[]string{"requests_weekly_user", "requests_daily_user"}, analytics.DimUser, 20},
		{[]string{"attempts_daily_reason_exact", "attempts_hourly_reason_exact"}, analytics.DimFailureReason, 3},
	} {
		var rolled uint64
		for _, table := range c.tables {
			var n uint64
			if err := s.Conn().QueryRow(ctx, "SELECT count() FROM "+table).Scan(&n); err != nil || n == 0 {
				t.Fatalf("%s rows: %d, %v", table, n, err)
			}
			rolled += n
		}
		var read uint64
		pctx := ch.Context(ctx, ch.WithProgress(func(p *ch.Progress) { read += p.Rows }))
		if _, err := s.Breakdown(pctx, "org-a", t0, t0.AddDate(0, 0, c.days), c.by); err != nil {
			t.Fatal(err)
		}
		if read == 0 || read > rolled+epochs { // the rollups and the epoch rows
			t.Errorf("a %d-day breakdown by %s read %d rows; %v have %d (raw: %d requests, %d attempts)", c.days, c.by, read, c.tables, rolled, len(reqs), len(atts))
		}
	}
	ranges := []struct {
		name     string
		from, to time.Time
	}{
		{"open", time.Time{}, time.Time{}},
		{"whole days", t0.AddDate(0, 0, 1), t0.AddDate(0, 0, 2)},
		{"unaligned", t0.Add(90*time.Minute + 17*time.Second), t0.Add(50*time.Hour + 3*time.Millisecond)},
		{"inside one hour", t0.Add(5*time.Hour + time.Minute), t0.Add(5*time.Hour + 59*time.Minute)},
		{"hours, not days", t0.Add(7 * time.Hour), t0.Add(53 * time.Hour)},
		{"weeks and days", t0.Add(26 * time.Hour), t0.Add(18*24*time.Hour + 5*time.Minute)},
	}
	for _, r := range ranges {
		for _, org := range []string{"org-a", "org-b"} {
			got, err := s.Summary(ctx, org, r.from, r.to)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ref.Summary(ctx, org, r.from, r.to)
			if err != nil {
				t.Fatal(err)
			}
			if !histogramClose(got, want) {
				t.Errorf("%s summary %s:\n got %+v\nwant %+v", r.name, org, got, want)
			}
		}
		for _, d := range analytics.Dimensions {
			for _, org := range []string{"org-a", "org-b"} {
				got, err := s.Breakdown(ctx, org, r.from, r.to, d)
				if err != nil {
					t.Fatal(err)
				}
				want, err := ref.Breakdown(ctx, org, r.from, r.to, d)
				if err != nil {
					t.Fatal(err)
				}
				for i := range got {
					got[i].LatencyMeanMs = round(got[i].LatencyMeanMs)
				}
				for i := range want {
					want[i].LatencyMeanMs = round(want[i].LatencyMeanMs)
				}
				if (len(got) > 0 || len(want) > 0) && !reflect.DeepEqual(got, want) {
					t.Errorf("%s %s %s:\n got %+v\nwant %+v", r.name, d, org, got, want)
				}
				// Windows (the user's are read in two phases: ranked, then summed).
				for _, win := range [][2]int{{0, 3}, {2, 4}, {9, 5}, {len(want), 2}} {
					var page []analytics.BreakdownRow
					q := analytics.BreakdownQuery{From: r.from, To: r.to, By: d, Offset: win[0], Limit: win[1]}
					if err := s.EachBreakdown(ctx, org, q, func(row analytics.BreakdownRow) error {
						row.LatencyMeanMs = round(row.LatencyMeanMs)
						page = append(page, row)
						return nil
					}); err != nil {
						t.Fatal(err)
					}
					w := want[min(win[0], len(want)):min(win[0]+win[1], len(want))]
					if (len(page) > 0 || len(w) > 0) && !reflect.DeepEqual(page, w) {
						t.Errorf("%s %s %s window %v:\n got %+v\nwant %+v", r.name, d, org, win, page, w)
					}
				}
			}
		}
	}
}

// histogramClose reports whether got equals want but for percentiles read
// from the latency histogram, each within 1% of want's (0.5 ms under 1 ms).
func histogramClose(got, want analytics.Summary) bool {
	g, w := []*float64{&got.LatencyP50, &got.LatencyP95, &got.LatencyP99, &got.TTFBP50, &got.TTFBP95, &got.TTFBP99},
		[]float64{want.LatencyP50, want.LatencyP95, want.LatencyP99, want.TTFBP50, want.TTFBP95, want.TTFBP99}
	for i, v := range w {
		if math.Abs(*g[i]-v) > max(0.01*v, 0.5) {
			return false
		}
		*g[i] = v
	}
	return got == want
}

func round(f float64) float64 { return float64(int64(f*1e6+0.5)) / 1e6 }
