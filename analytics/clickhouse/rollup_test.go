package clickhouse_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/analyticstest"
)

// TestRollupBreakdownMatchesRaw fills the hourly rollup (its epoch moved back
// so that every row counts as rolled up) and checks that Breakdown by every
// dimension, over ranges aligned to hours and not, equals the in-memory
// reference store's answer from the raw rows; and that the rollup was used.
func TestRollupBreakdownMatchesRaw(t *testing.T) {
	s := openFresh(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Conn().Exec(ctx, "INSERT INTO heddle_rollup_epoch (name, since) SELECT 'requests_hourly', toDateTime(0)"); err != nil {
		t.Fatal(err)
	}
	ref := analyticstest.NewStore()
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	var reqs []analytics.Request
	for i := range 2400 {
		reqs = append(reqs, analytics.Request{
			EventID: fmt.Sprintf("ev-%05d", i), Time: t0.Add(time.Duration(i*i%(72*60)) * time.Minute).Add(time.Duration(i) * time.Millisecond),
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
	var rolled uint64
	if err := s.Conn().QueryRow(ctx, "SELECT count() FROM requests_hourly").Scan(&rolled); err != nil || rolled == 0 {
		t.Fatalf("rollup rows: %d, %v", rolled, err)
	}
	// A whole-day range reads the rollup's rows, not the raw ones.
	var read uint64
	pctx := ch.Context(ctx, ch.WithProgress(func(p *ch.Progress) { read += p.Rows }))
	if _, err := s.Breakdown(pctx, "org-a", t0, t0.AddDate(0, 0, 3), analytics.DimModel); err != nil {
		t.Fatal(err)
	}
	if read == 0 || read > rolled+2 { // the rollup and its epoch rows
		t.Errorf("a 3-day breakdown read %d rows; the rollup has %d (raw: 2400)", read, rolled)
	}
	ranges := []struct {
		name     string
		from, to time.Time
	}{
		{"open", time.Time{}, time.Time{}},
		{"whole days", t0.AddDate(0, 0, 1), t0.AddDate(0, 0, 2)},
		{"unaligned", t0.Add(90*time.Minute + 17*time.Second), t0.Add(50*time.Hour + 3*time.Millisecond)},
		{"inside one hour", t0.Add(5*time.Hour + time.Minute), t0.Add(5*time.Hour + 59*time.Minute)},
	}
	for _, r := range ranges {
		for _, d := range analytics.Dimensions {
			if d == analytics.DimFailureReason {
				continue
			}
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
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s %s %s:\n got %+v\nwant %+v", r.name, d, org, got, want)
				}
			}
		}
	}
}

func round(f float64) float64 { return float64(int64(f*1e6+0.5)) / 1e6 }
