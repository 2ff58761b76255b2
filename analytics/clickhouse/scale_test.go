package clickhouse_test

import (
	"context"
	_ "embed"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/clickhouse"
	"github.com/heddle-gw/heddle/internal/scalesynth"
	"github.com/heddle-gw/heddle/internal/testwait"
)

//go:embed testdata/synth.sql
var synthSQL string

// BenchmarkScale times the console's and reports' reads on a large
// organisation. It synthesizes HEDDLE_SCALE_ROWS requests (default 10M: 50
// organisations over 30 days, org-big with a fifth of them, ~1.3 attempts
// per request, 0.5% replayed duplicates) into the database HEDDLE_SCALE_DB
// (default heddle_scale) unless it already holds them, then runs each read
// five times and reports the median and the rows ClickHouse read:
//
//	go test -run '^$' -bench Scale -benchtime 1x -timeout 60m ./analytics/clickhouse/
func BenchmarkScale(b *testing.B) {
	rows := int64(10_000_000)
	if v := os.Getenv("HEDDLE_SCALE_ROWS"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1000 {
			b.Fatalf("HEDDLE_SCALE_ROWS %q: want a number >= 1000", v)
		}
		rows = n
	}
	db := os.Getenv("HEDDLE_SCALE_DB")
	if db == "" {
		db = "heddle_scale"
	}
	ctx := context.Background()
	s := openScale(b, db, rows)
	var recent analytics.Request
	page, err := s.ListRequests(ctx, "org-big", analytics.RequestFilter{}, "", 1)
	if err != nil || len(page.Requests) == 0 {
		b.Fatalf("no rows for org-big: %v", err)
	}
	recent = page.Requests[0]
	end := recent.Time.Add(time.Second)
	from7, from30 := end.AddDate(0, 0, -7), end.AddDate(0, 0, -30)
	cur := "" // the cursor of the 100th page of 50
	for range 99 {
		p, err := s.ListRequests(ctx, "org-big", analytics.RequestFilter{}, cur, 50)
		if err != nil {
			b.Fatal(err)
		}
		cur = p.Next
	}
	deep := func(ctx context.Context) error {
		_, err := s.ListRequests(ctx, "org-big", analytics.RequestFilter{}, cur, 50)
		return err
	}
	mid, err := s.ListRequests(ctx, "org-big", analytics.RequestFilter{To: end.AddDate(0, 0, -15)}, "", 1)
	if err != nil || len(mid.Requests) == 0 {
		b.Fatalf("no mid-range row: %v", err)
	}
	cases := []struct {
		name string
		run  func(context.Context) error
	}{
		{"explorer/first", func(ctx context.Context) error {
			_, err := s.ListRequests(ctx, "org-big", analytics.RequestFilter{}, "", 50)
			return err
		}},
		{"explorer/page100", deep},
		{"explorer/filtered", func(ctx context.Context) error {
			_, err := s.ListRequests(ctx, "org-big", analytics.RequestFilter{Model: "gpt-5", Status: 502}, "", 50)
			return err
		}},
		{"explorer/empty-filter", func(ctx context.Context) error {
			_, err := s.ListRequests(ctx, "org-big", analytics.RequestFilter{Model: "no-such-model"}, "", 50)
			return err
		}},
		{"timeline", func(ctx context.Context) error {
			_, err := s.Timeline(ctx, "org-big", mid.Requests[0].RequestID)
			return err
		}},
		{"dashboard/7d", func(ctx context.Context) error {
			if _, err := s.Summary(ctx, "org-big", from7, end); err != nil {
				return err
			}
			for _, d := range []analytics.Dimension{analytics.DimDay, analytics.DimModel, analytics.DimRouteKind, analytics.DimFailureReason} {
				if _, err := s.Breakdown(ctx, "org-big", from7, end, d); err != nil {
					return err
				}
			}
			return nil
		}},
	}
	for _, d := range analytics.Dimensions {
		cases = append(cases, struct {
			name string
			run  func(context.Context) error
		}{"report30d/" + string(d), func(ctx context.Context) error {
			_, err := s.Breakdown(ctx, "org-big", from30, end, d)
			return err
		}})
	}
	replayMatchesFinal(b, s, end.AddDate(0, 0, -10))
	load, _ := os.ReadFile("/proc/loadavg")
	b.Logf("load average: %s", strings.TrimSpace(string(load)))
	// Rows read come from system.query_log, per case between the seconds
	// its fetches ran in: a callback of the driver's (WithProgress) would
	// miss the explorer's reads, whose own callback (its read budget)
	// replaces a caller's.
	type result struct {
		name       string
		med, least time.Duration
		from, to   time.Time
	}
	var results []result
	for _, c := range cases {
		from := nextSecond(b)
		var times []time.Duration
		for range 5 {
			start := time.Now()
			if err := c.run(ctx); err != nil {
				b.Fatalf("%s: %v", c.name, err)
			}
			times = append(times, time.Since(start))
		}
		to := time.Now()
		nextSecond(b) // no other case's queries start in to's second
		slices.Sort(times)
		results = append(results, result{c.name, times[2], times[0], from, to})
	}
	flushQueryLog(b, s)
	for _, r := range results {
		var read, queries uint64
		if err := s.Conn().QueryRow(ctx, "SELECT sum(read_rows), count() FROM system.query_log WHERE type = 2"+
			" AND query_start_time >= toDateTime(?) AND query_start_time <= toDateTime(?) AND client_name LIKE ?"+
			" AND query NOT LIKE '%heddle-scale-marker%'", r.from.Unix(), r.to.Unix(), "%"+benchClient+"%").Scan(&read, &queries); err != nil {
			b.Fatal(err)
		}
		b.Logf("%-28s median %7.1f ms  min %7.1f ms  rows read %d per run (%d queries in 5 runs)", r.name,
			float64(r.med.Microseconds())/1000, float64(r.least.Microseconds())/1000, read/5, queries)
	}
}

// benchClient names the benchmark's connection in system.query_log
// (client_name), so other sessions' queries on the server are not counted.
const benchClient = "heddle-scale-bench"

// nextSecond waits until the wall clock's second changes and returns the
// time then: query_log's start times are whole seconds.
func nextSecond(tb testing.TB) time.Time {
	tb.Helper()
	sec := time.Now().Unix()
	testwait.Until(tb, 2*time.Second, "the next second", func() bool { return time.Now().Unix() > sec })
	return time.Now()
}

// flushQueryLog runs a logged marker query and waits until query_log holds
// it (the log is flushed in order, so every earlier query is there too).
func flushQueryLog(tb testing.TB, s *clickhouse.Store) {
	tb.Helper()
	marker := fmt.Sprintf("heddle-scale-marker-%d", time.Now().UnixNano())
	if err := s.Conn().Exec(context.Background(), "SELECT '"+marker+"'"); err != nil {
		tb.Fatal(err)
	}
	testwait.Until(tb, time.Minute, "query_log flushed", func() bool {
		var n uint64
		err := s.Conn().QueryRow(context.Background(), "SELECT count() FROM system.query_log WHERE query LIKE ?", "%"+marker+"%").Scan(&n)
		return err == nil && n > 0
	})
}

// openScale opens (creating and filling when needed) the scale database.
func openScale(b *testing.B, db string, rows int64) *clickhouse.Store {
	b.Helper()
	ctx := context.Background()
	u, err := url.Parse(serverURL())
	if err != nil {
		b.Fatal(err)
	}
	admin, err := clickhouse.Open(ctx, u.String())
	if err != nil {
		b.Fatalf("ClickHouse: %v", err)
	}
	defer admin.Close()
	if err := admin.Conn().Exec(ctx, "CREATE DATABASE IF NOT EXISTS "+db); err != nil {
		b.Fatal(err)
	}
	u.Path = "/" + db
	// Synthesizing 10M rows takes minutes; every query is logged, under
	// benchClient's name, for the rows it read.
	u.RawQuery = "read_timeout=14400s&log_queries=1&client_info_product=" + benchClient + "/1"
	s, err := clickhouse.Open(ctx, u.String())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	p := scalesynth.Params{Rows: rows, Days: 30, EndMs: time.Now().UnixMilli(), OrgsSmall: 49, Users: 100_000,
		BigOrg: "org-big", BigFifths: 1}
	var have uint64
	if err := s.Conn().QueryRow(ctx, "SELECT count() FROM requests").Scan(&have); err != nil {
		b.Fatal(err)
	}
	if have >= uint64(rows) {
		// The rows end where the last run left them: add the traffic
		// since, so the newest are minutes old as in a live gateway.
		start := time.Now()
		n, err := scalesynth.TopUp(ctx, s.Conn(), synthSQL, p, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("%s holds %d request rows; reusing them, %d added up to now in %s", db, have, n, time.Since(start).Round(time.Second))
		return s
	}
	if have > 0 {
		b.Fatalf("%s holds %d request rows, fewer than %d: drop it first", db, have, rows)
	}
	start := time.Now()
	if err := scalesynth.Fill(ctx, s.Conn(), synthSQL, p, synthChunks); err != nil {
		b.Fatal(err)
	}
	// Every synthesized row went through the rollups' views (the migrations
	// ran first), so the rollups cover them although their times are older
	// than their epochs.
	if err := s.Conn().Exec(ctx, "INSERT INTO heddle_rollup_epoch (name, since) SELECT name, toDateTime(0) FROM heddle_rollup_epoch"); err != nil {
		b.Fatal(err)
	}
	b.Logf("synthesized %d requests into %s in %s", rows, db, time.Since(start).Round(time.Second))
	return s
}

// synthChunks is how many synthesis statements run at once (each is one
// ClickHouse thread).
const synthChunks = 4

// replayMatchesFinal inserts 0.5% of org-big's requests again through the
// Store, as a spill replay would, and checks that the counts and sums the
// console reads (no FINAL) equal ClickHouse's FINAL answer.
func replayMatchesFinal(b *testing.B, s *clickhouse.Store, to time.Time) {
	ctx := context.Background()
	var replay []analytics.Request
	cur := ""
	for len(replay) < 10_000 {
		p, err := s.ListRequests(ctx, "org-big", analytics.RequestFilter{To: to}, cur, analytics.MaxPageSize)
		if err != nil {
			b.Fatal(err)
		}
		replay = append(replay, p.Requests...)
		if cur = p.Next; cur == "" {
			break
		}
	}
	if err := s.InsertRequests(ctx, replay); err != nil {
		b.Fatal(err)
	}
	sum, err := s.Summary(ctx, "org-big", time.Time{}, time.Time{})
	if err != nil {
		b.Fatal(err)
	}
	var raw, final uint64
	var cost int64
	if err := s.Conn().QueryRow(ctx, "SELECT count() FROM requests WHERE org_id = 'org-big'").Scan(&raw); err != nil {
		b.Fatal(err)
	}
	if err := s.Conn().QueryRow(ctx, "SELECT count(), sum(cost_micros) FROM requests FINAL WHERE org_id = 'org-big'").Scan(&final, &cost); err != nil {
		b.Fatal(err)
	}
	b.Logf("replayed %d requests of org-big: %d rows stored, %d after FINAL; Summary %d requests, %d micros (FINAL %d micros)",
		len(replay), raw, final, sum.Requests, sum.CostMicros, cost)
	if raw != final || sum.Requests != int64(final) || sum.CostMicros != cost {
		b.Fatalf("the console's counts differ from FINAL")
	}
}
