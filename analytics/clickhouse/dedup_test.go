package clickhouse_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/clickhouse"
)

// TestReplayedRowsMatchFinal replays a third of the rows (whole batches, an
// overlapping batch and a batch repeating a row) and checks that no duplicate
// is stored and that every aggregate equals ClickHouse's FINAL answer,
// the rollups' (their epochs moved back so that they answer) too.
func TestReplayedRowsMatchFinal(t *testing.T) {
	s := openFresh(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.Conn().Exec(ctx, "INSERT INTO heddle_rollup_epoch (name, since) SELECT name, toDateTime(0) FROM heddle_rollup_epoch"); err != nil {
		t.Fatal(err)
	}
	s.SetExactQuantiles(0) // percentiles from the latency histogram
	t0 := time.Now().Add(-2 * time.Hour).UTC()
	var reqs []analytics.Request
	var atts []analytics.Attempt
	for i := range 3000 {
		org := fmt.Sprintf("org-%d", i%3)
		at := t0.Add(time.Duration(i) * 1700 * time.Millisecond)
		reqs = append(reqs, analytics.Request{EventID: fmt.Sprintf("ev-%05d", i), Time: at, RequestID: fmt.Sprintf("r-%d", i),
			OrgID: org, KeyID: "k", ServedModel: "m", RouteKind: "explicit", Status: 200, Attempts: 1, User: fmt.Sprintf("u%d", i%5),
			CostMicros: int64(10 + i%97), LatencyMs: float64(i % 500)})
		atts = append(atts, analytics.Attempt{EventID: fmt.Sprintf("at-%05d", i), Time: at, RequestID: fmt.Sprintf("r-%d", i),
			OrgID: org, OperationID: "op", Outcome: "failed", Reason: "upstream_5xx", Status: 503, CostMicros: int64(i % 7)})
	}
	for i := 0; i < len(reqs); i += 500 {
		if err := s.InsertRequests(ctx, reqs[i:i+500]); err != nil {
			t.Fatal(err)
		}
		if err := s.InsertAttempts(ctx, atts[i:i+500]); err != nil {
			t.Fatal(err)
		}
	}
	replays := [][2]int{{0, 500}, {250, 900}, {2900, 3000}}
	for _, r := range replays {
		if err := s.InsertRequests(ctx, append(reqs[r[0]:r[1]:r[1]], reqs[r[0]])); err != nil {
			t.Fatal(err)
		}
		if err := s.InsertAttempts(ctx, atts[r[0]:r[1]]); err != nil {
			t.Fatal(err)
		}
	}
	for _, table := range []string{"requests", "attempts"} {
		var raw, final uint64
		if err := s.Conn().QueryRow(ctx, "SELECT count() FROM "+table).Scan(&raw); err != nil {
			t.Fatal(err)
		}
		if err := s.Conn().QueryRow(ctx, "SELECT count() FROM "+table+" FINAL").Scan(&final); err != nil {
			t.Fatal(err)
		}
		if raw != 3000 || final != 3000 {
			t.Errorf("%s: %d rows stored, %d after FINAL; want 3000 both", table, raw, final)
		}
	}
	for _, org := range []string{"org-0", "org-1", "org-2"} {
		sum, err := s.Summary(ctx, org, time.Time{}, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		var n uint64
		var cost int64
		var p50 float64
		if err := s.Conn().QueryRow(ctx, "SELECT count(), sum(cost_micros), quantileExact(0.5)(latency_ms) FROM requests FINAL WHERE org_id = ?",
			org).Scan(&n, &cost, &p50); err != nil {
			t.Fatal(err)
		}
		if sum.Requests != int64(n) || sum.CostMicros != cost || math.Abs(sum.LatencyP50-p50) > max(0.01*p50, 0.5) { // the histogram's precision
			t.Errorf("%s summary %d requests, %d micros, p50 %v; FINAL says %d, %d, %v", org, sum.Requests, sum.CostMicros,
				sum.LatencyP50, n, cost, p50)
		}
		// By user from the weekly and daily rollups (whole weeks and days
		// of a range reaching a week back) and raw.
		from := t0.AddDate(0, 0, -8).Truncate(time.Hour)
		users, err := s.Breakdown(ctx, org, from, t0.Add(3*time.Hour), analytics.DimUser)
		if err != nil {
			t.Fatal(err)
		}
		var un, ucost int64
		for _, u := range users {
			un, ucost = un+u.Requests, ucost+u.CostMicros
		}
		if un != int64(n) || ucost != cost {
			t.Errorf("%s by user: %d requests, %d micros; FINAL says %d, %d", org, un, ucost, n, cost)
		}
		fr, err := s.Breakdown(ctx, org, time.Time{}, time.Time{}, analytics.DimFailureReason)
		if err != nil {
			t.Fatal(err)
		}
		var an uint64
		if err := s.Conn().QueryRow(ctx, "SELECT count() FROM attempts FINAL WHERE org_id = ? AND reason != ''", org).Scan(&an); err != nil {
			t.Fatal(err)
		}
		if len(fr) != 1 || fr[0].Attempts != int64(an) {
			t.Errorf("%s failure reasons %+v; FINAL counts %d attempts", org, fr, an)
		}
	}
}

// TestQueryLimit: a read stopped at the Store's row limit wraps
// analytics.ErrQueryLimit, which the console turns into "narrow the range".
func TestQueryLimit(t *testing.T) {
	s := openFresh(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var reqs []analytics.Request
	for i := range 5000 {
		reqs = append(reqs, analytics.Request{EventID: fmt.Sprintf("ev-%05d", i), Time: time.Now().Add(-time.Duration(i) * time.Second),
			RequestID: fmt.Sprintf("r-%d", i), OrgID: "org-a", Status: 200})
	}
	if err := s.InsertRequests(ctx, reqs); err != nil {
		t.Fatal(err)
	}
	tight := s.WithLimits(clickhouse.Limits{MaxExecutionSeconds: 10, MaxRowsToRead: 100, MaxMemoryBytes: 1 << 30})
	if _, err := tight.Summary(ctx, "org-a", time.Time{}, time.Time{}); !errors.Is(err, analytics.ErrQueryLimit) {
		t.Fatalf("summary over 5000 rows with a 100-row limit: %v, want ErrQueryLimit", err)
	}
	if sum, err := s.Summary(ctx, "org-a", time.Time{}, time.Time{}); err != nil || sum.Requests != 5000 {
		t.Fatalf("default limits: %+v %v", sum, err)
	}
}
