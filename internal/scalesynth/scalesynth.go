// Package scalesynth fills a ClickHouse database with the scale benchmarks'
// synthesized rows (analytics/clickhouse/testdata/synth.sql) through the
// schema the Store migrated, so the rollups' views see every row: in
// parallel chunks of the request numbers (one INSERT ... SELECT is one
// ClickHouse thread), and later topped up to the present so a benchmark's
// newest rows are always minutes old.
//
// Ring: test support (like internal/testdb), imported by tests only.
package scalesynth

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// Params are synth.sql's: Rows requests over Days days ending at EndMs
// (Unix milliseconds), OrgsSmall organisations plus BigOrg, which holds
// BigFifths of every five requests, Users end users.
type Params struct {
	Rows      int64
	Days      int
	EndMs     int64
	OrgsSmall int
	Users     int
	BigOrg    string
	BigFifths int
}

// spanMs is the synthesized range's length.
func (p Params) spanMs() int64 { return int64(p.Days) * 86_400_000 }

// timeMs is request number n's time, as synth.sql computes it.
func (p Params) timeMs(n int64) int64 { return p.EndMs - p.spanMs() + n*p.spanMs()/p.Rows }

// heavy lets a synthesis statement use 4 GiB.
func heavy(ctx context.Context) context.Context {
	return clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"max_memory_usage": 4 << 30}))
}

// Fill synthesizes all p.Rows requests (event ids ev-s-n) and their
// attempts in chunks statements running at once.
func Fill(ctx context.Context, conn driver.Conn, sql string, p Params, chunks int) error {
	chunks = max(chunks, 1)
	var wg sync.WaitGroup
	errs := make([]error, chunks)
	for k := range chunks {
		first, next := int64(k)*p.Rows/int64(chunks), int64(k+1)*p.Rows/int64(chunks)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[k] = run(ctx, conn, sql, p, "s", first, next)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// TopUp adds the requests (and attempts) that p's rate puts between the
// newest stored request and now, ending at now; it returns how many.
func TopUp(ctx context.Context, conn driver.Conn, sql string, p Params, now time.Time) (int64, error) {
	var newest int64
	if err := conn.QueryRow(ctx, "SELECT max(time_ms) FROM requests").Scan(&newest); err != nil {
		return 0, fmt.Errorf("newest request: %w", err)
	}
	p.EndMs = now.UnixMilli()
	// the first n whose time is after newest: n*span/rows > newest - start
	first := (newest-(p.EndMs-p.spanMs()))*p.Rows/p.spanMs() + 1
	if first < 0 || first >= p.Rows {
		return 0, nil
	}
	return p.Rows - first, run(ctx, conn, sql, p, fmt.Sprintf("t%d", p.EndMs), first, p.Rows)
}

// run synthesizes the requests numbered [first, next) with event ids
// ev-<tag>-n, then their attempts.
func run(ctx context.Context, conn driver.Conn, sql string, p Params, tag string, first, next int64) error {
	if next <= first {
		return nil
	}
	r := strings.NewReplacer("{rows}", fmt.Sprint(p.Rows), "{days}", fmt.Sprint(p.Days), "{end_ms}", fmt.Sprint(p.EndMs),
		"{orgs_small}", fmt.Sprint(p.OrgsSmall), "{users}", fmt.Sprint(p.Users), "{big_org}", p.BigOrg,
		"{big_fifths}", fmt.Sprint(p.BigFifths), "{first}", fmt.Sprint(first), "{count}", fmt.Sprint(next-first),
		"{run}", tag, "{lo_ms}", fmt.Sprint(p.timeMs(first)), "{hi_ms}", fmt.Sprint(p.timeMs(next)))
	var lines []string
	for _, line := range strings.Split(sql, "\n") {
		if !strings.HasPrefix(line, "--") {
			lines = append(lines, line)
		}
	}
	for i, stmt := range strings.Split(r.Replace(strings.Join(lines, "\n")), ";;") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if err := conn.Exec(heavy(ctx), stmt); err != nil {
			return fmt.Errorf("synthesize requests %d-%d, statement %d: %w", first, next, i+1, err)
		}
	}
	return nil
}
