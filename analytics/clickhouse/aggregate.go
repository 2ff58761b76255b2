package clickhouse

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

const failed = "(error_code != '' OR status >= 400)"

// Summary implements analytics.Reader. Percentiles use quantilesExact,
// whose index rule is analytics.QuantileIndex.
func (s *Store) Summary(ctx context.Context, orgID string, from, to time.Time) (analytics.Summary, error) {
	w, err := scope(orgID, from, to)
	if err != nil {
		return analytics.Summary{}, err
	}
	q := analytics.Quantiles
	levels := fmt.Sprintf("%g, %g, %g", q[0], q[1], q[2])
	query := "SELECT count(), countIf(" + failed + "), countIf(cache_hit = 1), sum(input_tokens), sum(output_tokens)," +
		" sum(cost_micros), sum(baseline_micros), sum(savings_micros)," +
		" quantilesExact(" + levels + ")(latency_ms), quantilesExactIf(" + levels + ")(ttfb_ms, ttfb_ms > 0)," +
		" countIf(ttfb_ms > 0)" +
		" FROM requests" + w.String()
	var (
		sum                  analytics.Summary
		n, errs, hits, nTTFB uint64
		lat, ttfb            []float64
	)
	if err := s.conn.QueryRow(s.readCtx(ctx), query, w.args...).Scan(&n, &errs, &hits, &sum.InputTokens, &sum.OutputTokens,
		&sum.CostMicros, &sum.BaselineMicros, &sum.SavingsMicros, &lat, &ttfb, &nTTFB); err != nil {
		return analytics.Summary{}, readErr("summary", err)
	}
	sum.Requests, sum.Errors, sum.CacheHits = int64(n), int64(errs), int64(hits)
	if n > 0 && len(lat) == 3 {
		sum.LatencyP50, sum.LatencyP95, sum.LatencyP99 = lat[0], lat[1], lat[2]
	}
	if nTTFB > 0 && len(ttfb) == 3 {
		sum.TTFBP50, sum.TTFBP95, sum.TTFBP99 = ttfb[0], ttfb[1], ttfb[2]
	}
	sum.Rates()
	return sum, nil
}

// scope is the WHERE clause of an organisation's rows in [from, to).
func scope(orgID string, from, to time.Time) (*where, error) {
	if err := analytics.CheckOrg(orgID); err != nil {
		return nil, err
	}
	fromMs, toMs, err := analytics.RangeMillis(from, to)
	if err != nil {
		return nil, err
	}
	w := &where{}
	w.add("org_id = ?", analytics.CleanText(orgID))
	w.timeRange(fromMs, toMs)
	return w, nil
}

// groupExpr is the String expression each request dimension groups by.
var groupExpr = map[analytics.Dimension]string{
	analytics.DimDay:       "toString(intDiv(time_ms, " + strconv.FormatInt(analytics.DayMillis, 10) + "))",
	analytics.DimModel:     "served_model",
	analytics.DimKey:       "key_id",
	analytics.DimUser:      "end_user",
	analytics.DimRouteKind: "route_kind",
	analytics.DimTag:       "tags", // expanded per tag by analytics.ExpandTags
}

// Breakdown implements analytics.Reader. Dimensions the hourly rollup
// carries (rollup.go) read it for the whole hours of the range it covers and
// the raw table for the rest; the others read the raw table.
func (s *Store) Breakdown(ctx context.Context, orgID string, from, to time.Time, by analytics.Dimension) ([]analytics.BreakdownRow, error) {
	if _, err := scope(orgID, from, to); err != nil {
		return nil, err
	}
	if by == analytics.DimFailureReason {
		w, _ := scope(orgID, from, to)
		return s.failureReasons(ctx, w)
	}
	expr, ok := groupExpr[by]
	if !ok {
		return nil, fmt.Errorf("%w: %q", analytics.ErrInvalidDimension, by)
	}
	fromMs, toMs, _ := analytics.RangeMillis(from, to)
	org := analytics.CleanText(orgID)
	acc := newGroups()
	rolled, raw, err := s.split(ctx, fromMs, toMs, by)
	if err != nil {
		return nil, err
	}
	if rolled.ok {
		if err := s.rollupBreakdown(ctx, org, rolled, rollupExpr[by], acc); err != nil {
			return nil, err
		}
	}
	for _, r := range raw {
		w := &where{}
		w.add("org_id = ?", org)
		w.timeRange(r.from, r.to)
		if err := s.rawBreakdown(ctx, w, expr, by, acc); err != nil {
			return nil, err
		}
	}
	out, err := acc.rows(by)
	if err != nil {
		return nil, err
	}
	if by == analytics.DimTag {
		return analytics.ExpandTags(out), nil
	}
	analytics.SortBreakdown(out, by)
	return out, nil
}

// rawBreakdown adds the raw rows matching w, grouped by expr, to acc.
func (s *Store) rawBreakdown(ctx context.Context, w *where, expr string, by analytics.Dimension, acc *groups) error {
	query := "SELECT " + expr + " AS k, count(), countIf(" + failed + "), countIf(cache_hit = 1), sum(attempts)," +
		" sum(input_tokens), sum(output_tokens), sum(cost_micros), sum(baseline_micros), sum(savings_micros)," +
		" sum(latency_ms)" +
		" FROM requests" + w.String() + " GROUP BY k"
	return s.addGroups(ctx, query, w.args, "breakdown by "+string(by), acc)
}

// failureReasons groups the scope's attempts that carry a reason.
func (s *Store) failureReasons(ctx context.Context, w *where) ([]analytics.BreakdownRow, error) {
	w.add("reason != ''")
	rows, err := s.conn.Query(s.readCtx(ctx), "SELECT reason, count(), uniqExact(request_id), sum(cost_micros)"+
		" FROM attempts"+w.String()+" GROUP BY reason", w.args...)
	if err != nil {
		return nil, readErr("failure reasons", err)
	}
	defer rows.Close()
	var out []analytics.BreakdownRow
	for rows.Next() {
		var (
			r       analytics.BreakdownRow
			n, reqs uint64
		)
		if err := rows.Scan(&r.Key, &n, &reqs, &r.CostMicros); err != nil {
			return nil, fmt.Errorf("clickhouse: scan failure reasons: %w", err)
		}
		r.Attempts, r.Requests = int64(n), int64(reqs)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("clickhouse: read failure reasons: %w", err)
	}
	analytics.SortBreakdown(out, analytics.DimFailureReason)
	return out, nil
}
