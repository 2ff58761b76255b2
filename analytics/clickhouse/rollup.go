package clickhouse

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

// The hourly rollup (migration 00004) answers Breakdown by day, model, key
// and route kind for the whole hours of a range after its epoch; the raw
// table answers for the partial hours at the edges and for rows older than
// the epoch. The end user stays on the raw table: its cardinality is close
// to the rows' own.
var rollupExpr = map[analytics.Dimension]string{
	analytics.DimDay:       "toString(intDiv(toUInt32(hour), 86400))",
	analytics.DimModel:     "served_model",
	analytics.DimKey:       "key_id",
	analytics.DimRouteKind: "route_kind",
}

const hourMs = int64(time.Hour / time.Millisecond)

// span is a half-open range of Unix milliseconds; ok is false for none.
type span struct {
	from, to int64
	ok       bool
}

// split divides [fromMs, toMs) into the part the rollup answers for by (the
// whole hours from the epoch on) and the raw parts around it.
func (s *Store) split(ctx context.Context, fromMs, toMs int64, by analytics.Dimension) (span, []span, error) {
	whole := []span{{from: fromMs, to: toMs, ok: true}}
	if _, ok := rollupExpr[by]; !ok {
		return span{}, whole, nil
	}
	startMs, err := s.rollupStart(ctx)
	if err != nil || startMs < 0 {
		return span{}, whole, err
	}
	lo := max(ceilHour(fromMs), startMs)
	hi := toMs
	if toMs != math.MaxInt64 {
		hi = toMs / hourMs * hourMs
	}
	if lo >= hi {
		return span{}, whole, nil
	}
	var raw []span
	if fromMs < lo {
		raw = append(raw, span{from: fromMs, to: lo, ok: true})
	}
	if hi < toMs {
		raw = append(raw, span{from: hi, to: toMs, ok: true})
	}
	return span{from: lo, to: hi, ok: true}, raw, nil
}

func ceilHour(ms int64) int64 { return (ms + hourMs - 1) / hourMs * hourMs }

// rollupStart returns the first Unix millisecond from which every row is in
// the rollup: the hour after the earliest epoch, plus an hour for replicas'
// clocks (a row's time is its arrival, never after its insert). -1 when the
// rollup has no epoch (not migrated). It is read once and then kept: the
// earliest epoch never moves.
func (s *Store) rollupStart(ctx context.Context) (int64, error) {
	if v := s.rollup.Load(); v != 0 {
		return v, nil
	}
	var (
		since time.Time
		n     uint64
	)
	if err := s.conn.QueryRow(s.readCtx(ctx), "SELECT min(since), count() FROM heddle_rollup_epoch WHERE name = 'requests_hourly'").
		Scan(&since, &n); err != nil {
		return 0, readErr("rollup epoch", err)
	}
	if n == 0 {
		return -1, nil
	}
	start := ceilHour(since.UnixMilli()) + hourMs
	s.rollup.Store(start)
	return start, nil
}

// rollupBreakdown adds the rollup's rows of org in sp, grouped by expr.
func (s *Store) rollupBreakdown(ctx context.Context, org string, sp span, expr string, acc *groups) error {
	w := &where{}
	w.add("org_id = ?", org)
	w.add("hour >= toDateTime(?)", sp.from/1000)
	if sp.to != math.MaxInt64 {
		w.add("hour < toDateTime(?)", sp.to/1000)
	}
	query := "SELECT " + expr + " AS k, sum(requests), sum(errors), sum(cache_hits), sum(attempts), sum(input_tokens)," +
		" sum(output_tokens), sum(cost_micros), sum(baseline_micros), sum(savings_micros), sum(latency_sum)" +
		" FROM requests_hourly" + w.String() + " GROUP BY k"
	return s.addGroups(ctx, query, w.args, "rollup breakdown", acc)
}

// addGroups runs a grouped query whose columns are the key, the request,
// error and cache-hit counts, attempts, tokens, money and the latency sum,
// and adds its rows to acc.
func (s *Store) addGroups(ctx context.Context, query string, args []any, what string, acc *groups) error {
	rows, err := s.conn.Query(s.readCtx(ctx), query, args...)
	if err != nil {
		return readErr(what, err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			r             analytics.BreakdownRow
			n, errs, hits uint64
			latency       float64
		)
		if err := rows.Scan(&r.Key, &n, &errs, &hits, &r.Attempts, &r.InputTokens, &r.OutputTokens, &r.CostMicros,
			&r.BaselineMicros, &r.SavingsMicros, &latency); err != nil {
			return fmt.Errorf("clickhouse: scan %s: %w", what, err)
		}
		r.Requests, r.Errors, r.CacheHits = int64(n), int64(errs), int64(hits)
		acc.add(r, latency)
	}
	if err := rows.Err(); err != nil {
		return readErr("read "+what, err)
	}
	return nil
}

// groups merges partial Breakdown rows (rollup and raw parts) by key.
type groups struct {
	byKey   map[string]*analytics.BreakdownRow
	latency map[string]float64
}

func newGroups() *groups {
	return &groups{byKey: map[string]*analytics.BreakdownRow{}, latency: map[string]float64{}}
}

func (g *groups) add(r analytics.BreakdownRow, latencySum float64) {
	t, ok := g.byKey[r.Key]
	if !ok {
		t = &analytics.BreakdownRow{Key: r.Key}
		g.byKey[r.Key] = t
	}
	t.Requests += r.Requests
	t.Errors += r.Errors
	t.CacheHits += r.CacheHits
	t.Attempts += r.Attempts
	t.InputTokens += r.InputTokens
	t.OutputTokens += r.OutputTokens
	t.CostMicros += r.CostMicros
	t.BaselineMicros += r.BaselineMicros
	t.SavingsMicros += r.SavingsMicros
	g.latency[r.Key] += latencySum
}

// rows returns the merged rows with their mean latency and, for DimDay, the
// day number keys formatted.
func (g *groups) rows(by analytics.Dimension) ([]analytics.BreakdownRow, error) {
	var out []analytics.BreakdownRow
	for k, r := range g.byKey {
		if r.Requests > 0 {
			r.LatencyMeanMs = g.latency[k] / float64(r.Requests)
		}
		if by == analytics.DimDay {
			d, err := strconv.ParseInt(k, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("clickhouse: day key %q: %w", k, err)
			}
			r.Key = analytics.DayKey(d)
		}
		out = append(out, *r)
	}
	return out, nil
}
