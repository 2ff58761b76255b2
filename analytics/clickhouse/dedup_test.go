package clickhouse_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/clickhouse"
)

// TestReplayedRowsMatchFinal replays a third of the rows (whole batches, an
// overlapping batch and a batch repeating a row) and checks that no duplicate
// is stored and that every aggregate equals ClickHouse's FINAL answer,
// the rollups' (their epochs moved back so that they answer) too. The
// failed attempts are 30,000 requests per organisation (more than an
// approximate distinct count is exact for), some failing twice with one
// reason, some with two reasons, a request's attempts split across
// batches: the distinct failed requests per reason equal FINAL's, over all
// time and over a range with raw edges.
func TestReplayedRowsMatchFinal(t *testing.T) {
	s := openFresh(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
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
	}
	for i := range 90_000 {
		org := fmt.Sprintf("org-%d", i%3)
		at := t0.Add(time.Duration(i) * 57 * time.Millisecond)
		reasons := []string{"upstream_5xx", "upstream_5xx", "upstream_5xx"}[:1+i%3] // one reason, up to three times
		if i%2 == 1 {
			reasons = []string{"upstream_5xx", "transport"}
		}
		for j, reason := range reasons {
			atts = append(atts, analytics.Attempt{EventID: fmt.Sprintf("at-%05d-%d", i, j), Time: at.Add(time.Duration(j) * 20 * time.Millisecond),
				RequestID: fmt.Sprintf("f-%d", i), OrgID: org, OperationID: "op", AttemptIndex: j, Outcome: "failed", Reason: reason,
				Status: 503, CostMicros: int64(i % 7)})
		}
	}
	for i := 0; i < len(reqs); i += 500 {
		if err := s.InsertRequests(ctx, reqs[i:i+500]); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	for i := 0; i < len(atts); i += 4999 { // a request's attempts now and then in two batches
		if err := s.InsertAttempts(ctx, atts[i:min(i+4999, len(atts))]); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("inserted %d attempts in %s", len(atts), time.Since(start))
	replays := [][2]int{{0, 500}, {250, 900}, {2900, 3000}}
	for _, r := range replays {
		if err := s.InsertRequests(ctx, append(reqs[r[0]:r[1]:r[1]], reqs[r[0]])); err != nil {
			t.Fatal(err)
		}
	}
	third := len(atts) / 3
	for _, r := range [][2]int{{0, 4999}, {2500, 9000}, {third, 2 * third}, {len(atts) - 100, len(atts)}} {
		if err := s.InsertAttempts(ctx, append(atts[r[0]:r[1]:r[1]], atts[r[0]])); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		table string
		want  int
	}{{"requests", len(reqs)}, {"attempts", len(atts)}} {
		var raw, final uint64
		if err := s.Conn().QueryRow(ctx, "SELECT count() FROM "+c.table).Scan(&raw); err != nil {
			t.Fatal(err)
		}
		if err := s.Conn().QueryRow(ctx, "SELECT count() FROM "+c.table+" FINAL").Scan(&final); err != nil {
			t.Fatal(err)
		}
		if raw != uint64(c.want) || final != uint64(c.want) {
			t.Errorf("%s: %d rows stored, %d after FINAL; want %d both", c.table, raw, final, c.want)
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
		// Pages by user (ranked by integers, then summed) are FINAL's ranks,
		// also over a range whose whole weeks hold the rows' week (the rank
		// rollup of 00017 answers for it).
		const weekMs = 7 * analytics.DayMillis
		weekAfter := time.UnixMilli((t0.UnixMilli()/weekMs + 1) * weekMs).UTC() // the Unix week after the rows'
		for i := range 10 {
			off, to := i%5, t0.Add(3*time.Hour)
			if i >= 5 {
				to = weekAfter.Add(3 * time.Hour)
			}
			fromMs, toMs, _ := analytics.RangeMillis(from, to)
			var page []string
			if err := s.EachBreakdown(ctx, org, analytics.BreakdownQuery{From: from, To: to, By: analytics.DimUser,
				Offset: off, Limit: 2}, func(r analytics.BreakdownRow) error {
				page = append(page, fmt.Sprintf("%s:%d:%d", r.Key, r.Requests, r.CostMicros))
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			var want []string
			rows, err := s.Conn().Query(ctx, "SELECT end_user, count() AS n, sum(cost_micros) FROM requests FINAL WHERE org_id = ?"+
				" AND time_ms >= ? AND time_ms < ? GROUP BY end_user ORDER BY n DESC, end_user LIMIT ?, 2", org, fromMs, toMs, off)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var u string
				var c uint64
				var m int64
				if err := rows.Scan(&u, &c, &m); err != nil {
					t.Fatal(err)
				}
				want = append(want, fmt.Sprintf("%s:%d:%d", u, c, m))
			}
			rows.Close()
			if !reflect.DeepEqual(page, want) {
				t.Errorf("%s users from %d to %s: %v; FINAL says %v", org, off, to, page, want)
			}
		}
		// Failure reasons over all time (the rollups answer) and over a
		// range with partial hours at both ends, read raw.
		for _, rg := range [][2]time.Time{{}, {t0.Add(17*time.Minute + 333*time.Millisecond), t0.Add(71*time.Minute + 7*time.Millisecond)}} {
			fr, err := s.Breakdown(ctx, org, rg[0], rg[1], analytics.DimFailureReason)
			if err != nil {
				t.Fatal(err)
			}
			if want := finalReasons(t, s, org, rg[0], rg[1]); !reflect.DeepEqual(sortedByKey(fr), want) {
				t.Errorf("%s failure reasons in %v:\n got %+v\nFINAL %+v", org, rg, sortedByKey(fr), want)
			}
		}
	}
}

// finalReasons is ClickHouse's FINAL answer for org's failure reasons in
// [from, to) (zero times: unbounded), ordered by reason: the attempts in
// the range, and the requests whose first attempt with the reason is in it.
func finalReasons(t *testing.T, s *clickhouse.Store, org string, from, to time.Time) []analytics.BreakdownRow {
	t.Helper()
	fromMs, toMs, err := analytics.RangeMillis(from, to)
	if err != nil {
		t.Fatal(err)
	}
	q := "SELECT a.reason, a.n, a.cost, r.n FROM" +
		" (SELECT reason, count() AS n, sum(cost_micros) AS cost FROM attempts FINAL WHERE org_id = ? AND reason != ''" +
		"  AND time_ms >= ? AND time_ms < ? GROUP BY reason) AS a ANY LEFT JOIN" +
		" (SELECT reason, count() AS n FROM (SELECT request_id, reason, min(time_ms) AS first FROM attempts FINAL" +
		"  WHERE org_id = ? AND reason != '' GROUP BY request_id, reason) WHERE first >= ? AND first < ? GROUP BY reason) AS r" +
		" USING reason ORDER BY reason"
	res, err := s.Conn().Query(context.Background(), q, org, fromMs, toMs, org, fromMs, toMs)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	var out []analytics.BreakdownRow
	for res.Next() {
		var r analytics.BreakdownRow
		var n, reqs uint64
		if err := res.Scan(&r.Key, &n, &r.CostMicros, &reqs); err != nil {
			t.Fatal(err)
		}
		r.Attempts, r.Requests = int64(n), int64(reqs)
		out = append(out, r)
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func sortedByKey(rows []analytics.BreakdownRow) []analytics.BreakdownRow {
	out := slices.Clone(rows)
	slices.SortFunc(out, func(a, b analytics.BreakdownRow) int { return strings.Compare(a.Key, b.Key) })
	return out
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
