package clickhouse_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/analyticstest"
	"github.com/heddle-gw/heddle/analytics/clickhouse"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// userPage reads q's window of org's breakdown by user, its latency means
// rounded.
func userPage(t *testing.T, s *clickhouse.Store, org string, q analytics.BreakdownQuery) []analytics.BreakdownRow {
	t.Helper()
	var page []analytics.BreakdownRow
	if err := s.EachBreakdown(context.Background(), org, q, func(r analytics.BreakdownRow) error {
		r.LatencyMeanMs = round(r.LatencyMeanMs)
		page = append(page, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return page
}

// fillUsers inserts n requests of org over 20 days from t0 into s and ref:
// 37 users with unequal counts and many ties.
func fillUsers(t *testing.T, s *clickhouse.Store, ref analytics.Store, org string, t0 time.Time, n int) {
	t.Helper()
	ctx := context.Background()
	var reqs []analytics.Request
	for i := range n {
		u := i % 37
		if i%3 == 0 {
			u = i % 11 // the first eleven users make more requests
		}
		reqs = append(reqs, analytics.Request{
			EventID: fmt.Sprintf("ev-%05d", i), Time: t0.Add(time.Duration(i*7919%(20*24*60)) * time.Minute),
			RequestID: fmt.Sprintf("r-%d", i), OrgID: org, KeyID: "k", ServedModel: "m", RouteKind: "explicit",
			User: fmt.Sprintf("user-%d", u), Status: 200, Attempts: 1, CostMicros: int64(i % 97), LatencyMs: float64(i % 400),
		})
	}
	for i := 0; i < len(reqs); i += 500 {
		if err := s.InsertRequests(ctx, reqs[i:min(i+500, len(reqs))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := ref.InsertRequests(ctx, reqs); err != nil {
		t.Fatal(err)
	}
}

// TestUserPageRanksByIntegers: each page of the report by user ranks the
// users in the integer-keyed weekly rollup (migration 00017) for the range's
// whole weeks, grouping no user strings; its rows are the reference store's
// (ties in key order), for pages at the start, across ties and past the
// end, and also when the ties are too many and it ranks by the strings.
func TestUserPageRanksByIntegers(t *testing.T) {
	ctx := context.Background()
	s, err := clickhouse.Open(ctx, freshDatabase(t)+"?log_queries=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.Conn().Exec(ctx, "INSERT INTO heddle_rollup_epoch (name, since) SELECT name, toDateTime(0) FROM heddle_rollup_epoch"); err != nil {
		t.Fatal(err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	org := "org-rank-" + hex.EncodeToString(b[:]) // names this test's queries in the query log
	ref := analyticstest.NewStore()
	t0 := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	fillUsers(t, s, ref, org, t0, 3000)
	from, to := t0.Add(26*time.Hour+5*time.Minute), t0.Add(19*24*time.Hour+7*time.Minute)
	want, err := ref.Breakdown(ctx, org, from, to, analytics.DimUser)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		want[i].LatencyMeanMs = round(want[i].LatencyMeanMs)
	}
	// With at most 3 hashes (a page's users times the sum pass's 5 parts)
	// every page ranks by the strings: the same rows.
	fetches := 0
	for _, ties := range []int{40_000, 3} {
		s.SetRankTies(ties)
		for _, win := range [][2]int{{0, 5}, {3, 9}, {12, 20}, {36, 4}, {len(want), 3}} {
			page := userPage(t, s, org, analytics.BreakdownQuery{From: from, To: to, By: analytics.DimUser, Offset: win[0], Limit: win[1]})
			fetches++
			w := want[min(win[0], len(want)):min(win[0]+win[1], len(want))]
			if (len(page) > 0 || len(w) > 0) && !reflect.DeepEqual(page, w) {
				t.Errorf("%d ties at most, window %v:\n got %+v\nwant %+v", ties, win, page, w)
			}
		}
	}
	// The pages' queries, once the query log holds a marker run after them
	// (it is written in order).
	marker := org + "-marker"
	if err := s.Conn().Exec(ctx, "SELECT '"+marker+"'"); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, time.Minute, "the marker in system.query_log", func() bool {
		var n uint64
		err := s.Conn().QueryRow(ctx, "SELECT count() FROM system.query_log WHERE type = 2 AND query LIKE ?", "%"+marker+"%").Scan(&n)
		return err == nil && n > 0
	})
	rows, err := s.Conn().Query(ctx, "SELECT query FROM system.query_log WHERE type = 2 AND query LIKE ? AND query NOT LIKE ?",
		"%'"+org+"'%", "%"+marker+"%")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var queries []string
	ranks, sums := 0, 0
	for rows.Next() {
		var q string
		if err := rows.Scan(&q); err != nil {
			t.Fatal(err)
		}
		queries = append(queries, q)
		if strings.Contains(q, "SELECT user_hash AS h, user_check AS c, requests AS p_n FROM requests_weekly_user_rank") {
			ranks++
			if strings.Contains(q, "end_user AS k") {
				t.Errorf("the rank pass groups the user strings: %s", q)
			}
		}
		if strings.Contains(q, "FROM requests_weekly_user_rank PREWHERE user_hash IN") {
			sums++
		}
	}
	// A rank for every page, a sum by hashes for at least the four
	// non-empty pages with 40,000 ties allowed.
	if ranks != fetches || sums < 4 {
		t.Errorf("%d pages by user ran %d ranks on requests_weekly_user_rank (want one each) and %d sums by hash (want 4 or more):\n%s",
			fetches, ranks, sums, strings.Join(queries, "\n"))
	}
}

// TestUserRankHashCollision: two users whose hashes collide (forged in the
// rank rollup: the same user_hash, their own user_check) are ranked apart,
// as the strings rank them: the page is the reference store's, not the
// pair's merged count.
func TestUserRankHashCollision(t *testing.T) {
	ctx := context.Background()
	s := openFresh(t)
	if err := s.Conn().Exec(ctx, "INSERT INTO heddle_rollup_epoch (name, since) SELECT name, toDateTime(0) FROM heddle_rollup_epoch"); err != nil {
		t.Fatal(err)
	}
	ref := analyticstest.NewStore()
	t0 := time.Date(2026, 11, 19, 0, 0, 0, 0, time.UTC) // a Thursday: a Unix week's start
	fillUsers(t, s, ref, "org-a", t0, 1500)
	// Every rank row of user-0 and user-1 under user-0's hash.
	for _, stmt := range []string{
		"CREATE TABLE forged ENGINE = Memory AS SELECT org_id, week, if(user_hash = cityHash64('user-1'), cityHash64('user-0'), user_hash) AS user_hash," +
			" user_check, end_user, requests, errors, cache_hits, attempts, input_tokens, output_tokens, cost_micros, baseline_micros," +
			" savings_micros, latency_sum FROM requests_weekly_user_rank",
		"TRUNCATE TABLE requests_weekly_user_rank",
		"INSERT INTO requests_weekly_user_rank SELECT * FROM forged",
	} {
		if err := s.Conn().Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	var hashes, users uint64
	if err := s.Conn().QueryRow(ctx, "SELECT uniqExact(user_hash), uniqExact(user_check) FROM requests_weekly_user_rank").Scan(&hashes, &users); err != nil {
		t.Fatal(err)
	}
	if users != hashes+1 {
		t.Fatalf("forged rank rollup: %d hashes of %d users, want one fewer", hashes, users)
	}
	from, to := t0, t0.AddDate(0, 0, 14) // whole weeks: the rank rollup alone ranks
	want, err := ref.Breakdown(ctx, "org-a", from, to, analytics.DimUser)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		want[i].LatencyMeanMs = round(want[i].LatencyMeanMs)
	}
	// The last window starts at the last user: one hash fewer than the
	// users.
	for _, win := range [][2]int{{0, 1}, {0, 3}, {1, 2}, {5, 10}, {len(want) - 1, 3}} {
		page := userPage(t, s, "org-a", analytics.BreakdownQuery{From: from, To: to, By: analytics.DimUser, Offset: win[0], Limit: win[1]})
		if w := want[win[0]:min(win[0]+win[1], len(want))]; !reflect.DeepEqual(page, w) {
			t.Errorf("window %v:\n got %+v\nwant %+v", win, page, w)
		}
	}
}

// TestUserPageManyTiesFitsQuery: a page whose window lies in a band of
// 20,000 tied users (fewer than the ties the integer rank allows) over a
// range with partial weeks, days and hours at both ends (a rank part, two
// daily parts and two raw parts, each with the users' hashes as its
// PREWHERE) reads the page: the sum pass's SQL stays within
// max_query_size.
func TestUserPageManyTiesFitsQuery(t *testing.T) {
	ctx := context.Background()
	s := openFresh(t)
	if err := s.Conn().Exec(ctx, "INSERT INTO heddle_rollup_epoch (name, since) SELECT name, toDateTime(0) FROM heddle_rollup_epoch"); err != nil {
		t.Fatal(err)
	}
	ref := analyticstest.NewStore()
	t0 := time.Date(2026, 11, 19, 0, 0, 0, 0, time.UTC) // a Thursday: a Unix week's start
	from, to := t0.Add(26*time.Hour+5*time.Minute), t0.Add(15*24*time.Hour+7*time.Minute)
	var reqs []analytics.Request
	for i := range 20_000 {
		reqs = append(reqs, analytics.Request{
			EventID: fmt.Sprintf("ev-%05d", i), Time: from.Add(to.Sub(from) / 20_000 * time.Duration(i)), RequestID: fmt.Sprintf("r-%d", i),
			OrgID: "org-a", KeyID: "k", ServedModel: "m", RouteKind: "explicit", User: fmt.Sprintf("user-%05d", i), Status: 200,
			Attempts: 1, CostMicros: int64(i % 97), LatencyMs: float64(i % 400),
		})
	}
	for i := 0; i < len(reqs); i += 5000 {
		if err := s.InsertRequests(ctx, reqs[i:i+5000]); err != nil {
			t.Fatal(err)
		}
	}
	if err := ref.InsertRequests(ctx, reqs); err != nil {
		t.Fatal(err)
	}
	want, err := ref.Breakdown(ctx, "org-a", from, to, analytics.DimUser)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		want[i].LatencyMeanMs = round(want[i].LatencyMeanMs)
	}
	for _, win := range [][2]int{{0, 10}, {12_345, 26}} {
		page := userPage(t, s, "org-a", analytics.BreakdownQuery{From: from, To: to, By: analytics.DimUser, Offset: win[0], Limit: win[1]})
		if w := want[win[0] : win[0]+win[1]]; !reflect.DeepEqual(page, w) {
			t.Errorf("window %v:\n got %+v\nwant %+v", win, page, w)
		}
	}
}

// TestUserPageBeforeRankEpoch: over a range whose first whole week predates
// the rank rollup's epoch (as for a month after 00017 is deployed) the
// weekly rollup by user answers for that week, its users hashed on the fly,
// and the rank rollup for the week after: each page is the reference
// store's.
func TestUserPageBeforeRankEpoch(t *testing.T) {
	ctx := context.Background()
	s := openFresh(t)
	t0 := time.Date(2026, 11, 19, 0, 0, 0, 0, time.UTC) // a Thursday: a Unix week's start
	if err := s.Conn().Exec(ctx, "INSERT INTO heddle_rollup_epoch (name, since) SELECT name, if(name = 'requests_weekly_user_rank', ?, toDateTime(0))"+
		" FROM heddle_rollup_epoch", t0.AddDate(0, 0, 8)); err != nil {
		t.Fatal(err)
	}
	ref := analyticstest.NewStore()
	fillUsers(t, s, ref, "org-a", t0, 3000)
	// The week from t0+7d from the weekly rollup, from t0+14d from the
	// rank rollup (its epoch's week is t0+7d), days and raw rows at the
	// edges.
	from, to := t0.Add(26*time.Hour+5*time.Minute), t0.Add(22*24*time.Hour+7*time.Minute)
	want, err := ref.Breakdown(ctx, "org-a", from, to, analytics.DimUser)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		want[i].LatencyMeanMs = round(want[i].LatencyMeanMs)
	}
	for _, win := range [][2]int{{0, 5}, {3, 9}, {12, 20}, {36, 4}} {
		page := userPage(t, s, "org-a", analytics.BreakdownQuery{From: from, To: to, By: analytics.DimUser, Offset: win[0], Limit: win[1]})
		if w := want[min(win[0], len(want)):min(win[0]+win[1], len(want))]; !reflect.DeepEqual(page, w) {
			t.Errorf("window %v:\n got %+v\nwant %+v", win, page, w)
		}
	}
}
