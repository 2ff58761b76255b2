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

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/clickhouse"
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
	for _, c := range cases {
		var times []time.Duration
		var read uint64
		for i := range 5 {
			var n uint64
			cctx := ch.Context(ctx, ch.WithProgress(func(p *ch.Progress) { n += p.Rows }))
			start := time.Now()
			if err := c.run(cctx); err != nil {
				b.Fatalf("%s: %v", c.name, err)
			}
			times = append(times, time.Since(start))
			if i == 0 {
				read = n
			}
		}
		slices.Sort(times)
		b.Logf("%-28s median %7.1f ms  min %7.1f ms  rows read %d", c.name,
			float64(times[2].Microseconds())/1000, float64(times[0].Microseconds())/1000, read)
	}
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
	u.RawQuery = "read_timeout=3600s" // synthesizing 10M rows takes minutes
	s, err := clickhouse.Open(ctx, u.String())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	var have uint64
	if err := s.Conn().QueryRow(ctx, "SELECT count() FROM requests").Scan(&have); err != nil {
		b.Fatal(err)
	}
	if have >= uint64(rows) {
		b.Logf("%s holds %d request rows; reusing them", db, have)
		return s
	}
	if have > 0 {
		b.Fatalf("%s holds %d request rows, fewer than %d: drop it first", db, have, rows)
	}
	start := time.Now()
	r := strings.NewReplacer("{rows}", fmt.Sprint(rows), "{days}", "30", "{end_ms}", fmt.Sprint(time.Now().UnixMilli()),
		"{orgs_small}", "49", "{users}", "100000", "{big_org}", "org-big", "{big_fifths}", "1")
	var sql []string
	for _, line := range strings.Split(synthSQL, "\n") {
		if !strings.HasPrefix(line, "--") {
			sql = append(sql, line)
		}
	}
	for _, stmt := range strings.Split(r.Replace(strings.Join(sql, "\n")), ";;") {
		if err := s.Conn().Exec(ch.Context(ctx, ch.WithSettings(ch.Settings{"max_memory_usage": 6 << 30})), stmt); err != nil {
			b.Fatalf("synthesize: %v", err)
		}
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
