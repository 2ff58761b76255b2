package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"github.com/heddle-gw/heddle/internal/scalesynth"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// BenchmarkScaleConsole times every console page and report through the
// running binary on a large ClickHouse database (make bench-console):
//
//  1. starts the built heddle with HEDDLE_DATA_DIR=$HEDDLE_SCALE_DATA (kept
//     between runs) against the ClickHouse database $HEDDLE_SCALE_DB
//     (default heddle_scale_console), its queries logged (log_queries=1);
//  2. signs up and logs in as big@scale.test, whose organisation is the big
//     one;
//  3. when the database holds none of that organisation's rows, synthesizes
//     $HEDDLE_SCALE_ROWS requests (default 10M: 50 organisations over 30
//     days, the big one $HEDDLE_SCALE_BIG_FIFTHS fifths of them (default 1),
//     ~1.3 attempts each) with INSERT ...
//     SELECT from numbers() through the schema the binary migrated, so the
//     rollups' views see every row;
//  4. fetches each page once to warm it, then five times, and prints the
//     median, the minimum and the rows ClickHouse read per fetch (from
//     system.query_log), and the load average;
//  5. samples the process's VmRSS while it streams the 30-day CSV report by
//     user (one row per user), twice, and prints the peak over idle.
func BenchmarkScaleConsole(b *testing.B) {
	rows := int64(10_000_000)
	if v := os.Getenv("HEDDLE_SCALE_ROWS"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1000 {
			b.Fatalf("HEDDLE_SCALE_ROWS %q: want a number >= 1000", v)
		}
		rows = n
	}
	fifths := 1
	if v := os.Getenv("HEDDLE_SCALE_BIG_FIFTHS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 4 {
			b.Fatalf("HEDDLE_SCALE_BIG_FIFTHS %q: want 1 to 4", v)
		}
		fifths = n
	}
	db := envOr("HEDDLE_SCALE_DB", "heddle_scale_console")
	dataDir := envOr("HEDDLE_SCALE_DATA", filepath.Join(os.TempDir(), "heddle-scale-"+db))
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		b.Fatal(err)
	}
	base := envOr("HEDDLE_TEST_CLICKHOUSE_URL", "clickhouse://127.0.0.1:9000/default")
	admin := openClickHouse(b, base)
	ctx := context.Background()
	if err := admin.Exec(ctx, "CREATE DATABASE IF NOT EXISTS "+db); err != nil {
		b.Fatal(err)
	}
	dbURL := strings.Replace(base, "/default", "/"+db, 1)
	in := startHeddle(b, map[string]string{
		"HEDDLE_DATA_DIR":       dataDir,
		"HEDDLE_CLICKHOUSE_URL": dbURL + "?log_queries=1",
	})
	waitReady(b, in.URL)
	web, orgID := logIn(b, in.URL, "big@scale.test")
	conn := openClickHouse(b, dbURL+"?read_timeout=14400s")
	synthesizeFor(b, conn, rows, fifths, orgID)

	// The pages: the explorer's first, 100th (cursor of the 99th), filtered
	// and empty-filter pages, a timeline from half a month back, the
	// dashboard and each 30-day report.
	var reqID string
	if err := conn.QueryRow(ctx, "SELECT request_id FROM requests WHERE org_id = ? AND time < now() - 15 * 86400"+
		" ORDER BY time DESC LIMIT 1", orgID).Scan(&reqID); err != nil {
		b.Fatal(err)
	}
	next := regexp.MustCompile(`href="(/requests\?[^"]*cursor=[^"]*)"[^>]*data-testid="requests-next"`)
	deep := "/requests"
	for range 99 {
		m := next.FindStringSubmatch(get(b, web, in.URL+deep))
		if m == nil {
			b.Fatalf("no next page after %s", deep)
		}
		deep = strings.ReplaceAll(m[1], "&amp;", "&")
	}
	pages := []struct{ name, path string }{
		{"explorer/first", "/requests"},
		{"explorer/page100", deep},
		{"explorer/filtered", "/requests?model=gpt-5&status=error"},
		{"explorer/empty-filter", "/requests?model=no-such-model"},
		{"timeline", "/requests/" + reqID},
		{"dashboard", "/dashboard"},
	}
	for _, g := range []string{"day", "model", "key", "user", "route"} {
		pages = append(pages, struct{ name, path string }{"report30d/" + g, "/reports?group=" + g})
	}
	pages = append(pages, struct{ name, path string }{"report30d/user/page40", "/reports?group=user&offset=1000"})
	type result struct {
		name       string
		med, least time.Duration
		from, to   time.Time
	}
	var results []result
	for _, p := range pages {
		get(b, web, in.URL+p.path) // warm
		from := nextSecond(b)
		var times []time.Duration
		for range 5 {
			start := time.Now()
			get(b, web, in.URL+p.path)
			times = append(times, time.Since(start))
		}
		to := time.Now()
		nextSecond(b) // no other page's queries start in to's second
		slices.Sort(times)
		results = append(results, result{p.name, times[2], times[0], from, to})
	}
	load, _ := os.ReadFile("/proc/loadavg")
	flushQueryLog(b, conn)
	b.Logf("load average: %s", strings.TrimSpace(string(load)))
	for _, r := range results {
		var read, queries uint64
		if err := conn.QueryRow(ctx, "SELECT sum(read_rows), count() FROM system.query_log WHERE type = 2"+
			" AND query_start_time >= toDateTime(?) AND query_start_time <= toDateTime(?) AND query NOT LIKE '%heddle-scale-marker%'",
			r.from.Unix(), r.to.Unix()).Scan(&read, &queries); err != nil {
			b.Fatal(err)
		}
		b.Logf("%-24s median %7.1f ms  min %7.1f ms  rows read %9d per fetch (%d queries in 5 fetches)", r.name,
			float64(r.med.Microseconds())/1000, float64(r.least.Microseconds())/1000, read/5, queries)
	}
	// Twice: the first export starts from an idle heap the runtime has
	// returned to the system; the second from the heap the first left.
	exportRSS(b, in, web, "/reports/cost.csv?group=user")
	exportRSS(b, in, web, "/reports/cost.csv?group=user")
}

// openClickHouse connects to url; closed when tb ends.
func openClickHouse(tb testing.TB, url string) clickhouse.Conn {
	tb.Helper()
	opts, err := clickhouse.ParseDSN(url)
	if err != nil {
		tb.Fatal(err)
	}
	conn, err := clickhouse.Open(opts)
	if err == nil {
		err = conn.Ping(context.Background())
	}
	if err != nil {
		tb.Fatalf("clickhouse at %s: %v", url, err)
	}
	tb.Cleanup(func() { conn.Close() })
	return conn
}

// waitReady waits until the binary reports ClickHouse ready (it has applied
// the migrations).
func waitReady(tb testing.TB, base string) {
	tb.Helper()
	testwait.Until(tb, time.Minute, "heddle /readyz with ClickHouse up", func() bool {
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			return false
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode == 200 && strings.Contains(string(raw), `"clickhouse":"ok"`)
	})
}

// logIn signs email up (a taken email answers 202 too) and logs in; it
// returns the console's client and the organisation's id.
func logIn(tb testing.TB, base, email string) (*http.Client, string) {
	tb.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	body := `{"email":"` + email + `","password":"correct horse battery staple"}`
	resp, err := c.Post(base+"/api/v1/signup", "application/json", strings.NewReader(body[:len(body)-1]+`,"org_name":"big"}`))
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	resp, err = c.Post(base+"/api/v1/login", "application/json", strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`"org":\{"id":"([^"]+)"`).FindSubmatch(raw)
	if resp.StatusCode != 200 || m == nil {
		tb.Fatalf("login %s: %d %s", email, resp.StatusCode, raw)
	}
	return c, string(m[1])
}

// synthesizeFor fills the database with rows requests, fifths fifths of
// them orgID's, unless it holds orgID's rows already; then (and on reuse)
// it tops the rows up to now, so the newest are minutes old as in a live
// gateway.
func synthesizeFor(tb testing.TB, conn clickhouse.Conn, rows int64, fifths int, orgID string) {
	tb.Helper()
	ctx := context.Background()
	raw, err := os.ReadFile("../analytics/clickhouse/testdata/synth.sql")
	if err != nil {
		tb.Fatal(err)
	}
	p := scalesynth.Params{Rows: rows, Days: 30, EndMs: time.Now().UnixMilli(), OrgsSmall: 49, Users: 100_000,
		BigOrg: orgID, BigFifths: fifths}
	var mine, all uint64
	if err := conn.QueryRow(ctx, "SELECT countIf(org_id = ?), count() FROM requests", orgID).Scan(&mine, &all); err != nil {
		tb.Fatal(err)
	}
	switch {
	case mine > 0:
		tb.Logf("the database holds %d requests, %d of the big organisation; reusing them", all, mine)
		backfill(tb, conn)
	case all > 0:
		tb.Fatalf("the database holds %d requests of other organisations: drop it first", all)
	default:
		start := time.Now()
		if err := scalesynth.Fill(ctx, conn, string(raw), p, 4); err != nil {
			tb.Fatal(err)
		}
		// Every row went through the rollups' views (the binary migrated
		// first), so they cover the rows although their times are older
		// than the epochs.
		if err := conn.Exec(ctx, "INSERT INTO heddle_rollup_epoch (name, since) SELECT name, toDateTime(0) FROM heddle_rollup_epoch"); err != nil {
			tb.Fatal(err)
		}
		tb.Logf("synthesized %d requests in %s", rows, time.Since(start).Round(time.Second))
	}
	start := time.Now()
	n, err := scalesynth.TopUp(ctx, conn, string(raw), p, time.Now())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Logf("added %d requests up to now in %s", n, time.Since(start).Round(time.Millisecond))
}

// backfill fills each rollup the reused database's rows predate (empty
// while the rows are not: its migration came after them) from the rows
// (analytics/clickhouse/testdata/backfill.sql) and moves its epoch back.
func backfill(tb testing.TB, conn clickhouse.Conn) {
	tb.Helper()
	ctx := context.Background()
	raw, err := os.ReadFile("../analytics/clickhouse/testdata/backfill.sql")
	if err != nil {
		tb.Fatal(err)
	}
	var sql []string
	for _, line := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(line, "--") {
			sql = append(sql, line)
		}
	}
	heavy := clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"max_memory_usage": 6 << 30}))
	for _, stmt := range strings.Split(strings.Join(sql, "\n"), ";;") {
		f := strings.Fields(stmt)
		if len(f) < 3 {
			continue
		}
		table := f[2]
		var n uint64
		if err := conn.QueryRow(ctx, "SELECT count() FROM "+table).Scan(&n); err != nil {
			tb.Fatal(err)
		}
		if n > 0 {
			continue
		}
		start := time.Now()
		if err := conn.Exec(heavy, stmt); err != nil {
			tb.Fatalf("backfill %s: %v", table, err)
		}
		if err := conn.Exec(ctx, "INSERT INTO heddle_rollup_epoch (name, since) SELECT ?, toDateTime(0)", table); err != nil {
			tb.Fatal(err)
		}
		tb.Logf("backfilled %s in %s", table, time.Since(start).Round(time.Millisecond))
	}
}

// get fetches url with the console's session and returns the body; any
// status but 200 fails.
func get(tb testing.TB, c *http.Client, url string) string {
	tb.Helper()
	resp, err := c.Get(url)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		tb.Fatalf("GET %s: %d %s", url, resp.StatusCode, raw)
	}
	return string(raw)
}

// nextSecond waits until the wall clock's second changes and returns the
// time then: query_log's start times are whole seconds, so pages measured
// in different seconds are told apart.
func nextSecond(tb testing.TB) time.Time {
	tb.Helper()
	s := time.Now().Unix()
	testwait.Until(tb, 2*time.Second, "the next second", func() bool { return time.Now().Unix() > s })
	return time.Now()
}

// flushQueryLog runs a logged marker query and waits until query_log holds
// it (the log is flushed in order, so every earlier query is there too).
func flushQueryLog(tb testing.TB, conn clickhouse.Conn) {
	tb.Helper()
	marker := fmt.Sprintf("heddle-scale-marker-%d", rand.Uint64())
	logged := clickhouse.Context(context.Background(), clickhouse.WithSettings(clickhouse.Settings{"log_queries": 1}))
	if err := conn.Exec(logged, "SELECT '"+marker+"'"); err != nil {
		tb.Fatal(err)
	}
	testwait.Until(tb, time.Minute, "query_log flushed", func() bool {
		var n uint64
		err := conn.QueryRow(context.Background(), "SELECT count() FROM system.query_log WHERE query LIKE ?", "%"+marker+"%").Scan(&n)
		return err == nil && n > 0
	})
}

// vmRSS is the resident set of process pid in kB.
func vmRSS(pid int) (int64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// exportRSS streams the CSV at path, sampling the binary's VmRSS every 5 ms,
// and prints its idle and peak values and the rows received.
func exportRSS(tb testing.TB, in *instance, c *http.Client, path string) {
	tb.Helper()
	pid := in.cmd.Process.Pid
	idle, err := vmRSS(pid)
	if err != nil {
		tb.Fatal(err)
	}
	peak := idle
	done := make(chan struct{})
	sampled := make(chan int64)
	go func() {
		top := int64(0)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				sampled <- top
				return
			case <-t.C:
				if n, err := vmRSS(pid); err == nil {
					top = max(top, n)
				}
			}
		}
	}()
	start := time.Now()
	resp, err := c.Get(in.URL + path)
	if err != nil {
		tb.Fatal(err)
	}
	first := time.Since(start)
	var lines, size int64
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		lines++
		size += int64(len(sc.Bytes())) + 1
	}
	resp.Body.Close()
	close(done)
	peak = max(peak, <-sampled)
	if resp.StatusCode != 200 || sc.Err() != nil {
		tb.Fatalf("GET %s: %d %v", path, resp.StatusCode, sc.Err())
	}
	tb.Logf("export %s: %d lines, %.1f MB, headers after %.0f ms, all in %.0f ms; VmRSS idle %.1f MB, peak %.1f MB (+%.1f MB)",
		path, lines, float64(size)/1e6, float64(first.Microseconds())/1000, float64(time.Since(start).Microseconds())/1000,
		float64(idle)/1024, float64(peak)/1024, float64(peak-idle)/1024)
}
