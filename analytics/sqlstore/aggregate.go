package sqlstore

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"gorm.io/gorm"

	"github.com/heddle-gw/heddle/analytics"
)

const failed = "(error_code <> '' OR status >= 400)"

// sumOf is SUM that is 0 (not NULL, and BIGINT on Postgres) over no rows.
func sumOf(expr string) string { return "CAST(COALESCE(SUM(" + expr + "), 0) AS BIGINT)" }

var requestAggregates = "COUNT(*) AS requests, " +
	sumOf("CASE WHEN "+failed+" THEN 1 ELSE 0 END") + " AS errors, " +
	sumOf("CASE WHEN cache_hit THEN 1 ELSE 0 END") + " AS cache_hits, " +
	sumOf("attempts") + " AS attempts, " +
	sumOf("input_tokens") + " AS input_tokens, " +
	sumOf("output_tokens") + " AS output_tokens, " +
	sumOf("cost_micros") + " AS cost_micros, " +
	sumOf("baseline_micros") + " AS baseline_micros, " +
	sumOf("savings_micros") + " AS savings_micros, " +
	"CAST(COALESCE(AVG(latency_ms), 0) AS DOUBLE PRECISION) AS latency_mean_ms"

type aggregateRow struct {
	K              string  `gorm:"column:k"`
	Requests       int64   `gorm:"column:requests"`
	Errors         int64   `gorm:"column:errors"`
	CacheHits      int64   `gorm:"column:cache_hits"`
	Attempts       int64   `gorm:"column:attempts"`
	InputTokens    int64   `gorm:"column:input_tokens"`
	OutputTokens   int64   `gorm:"column:output_tokens"`
	CostMicros     int64   `gorm:"column:cost_micros"`
	BaselineMicros int64   `gorm:"column:baseline_micros"`
	SavingsMicros  int64   `gorm:"column:savings_micros"`
	LatencyMeanMs  float64 `gorm:"column:latency_mean_ms"`
}

func (a aggregateRow) row() analytics.BreakdownRow {
	return analytics.BreakdownRow{
		Key: a.K, Requests: a.Requests, Errors: a.Errors, CacheHits: a.CacheHits, Attempts: a.Attempts,
		InputTokens: a.InputTokens, OutputTokens: a.OutputTokens, CostMicros: a.CostMicros,
		BaselineMicros: a.BaselineMicros, SavingsMicros: a.SavingsMicros, LatencyMeanMs: a.LatencyMeanMs,
	}
}

// inScope returns a query builder over the organisation's rows of model in
// [from, to).
func (s *Store) inScope(ctx context.Context, model any, orgID string, from, to time.Time) (func() *gorm.DB, error) {
	if err := analytics.CheckOrg(orgID); err != nil {
		return nil, err
	}
	fromMs, toMs, err := analytics.RangeMillis(from, to)
	if err != nil {
		return nil, err
	}
	return func() *gorm.DB { return scoped(s.db.WithContext(ctx).Model(model), orgID, fromMs, toMs) }, nil
}

// Summary implements analytics.Reader.
func (s *Store) Summary(ctx context.Context, orgID string, from, to time.Time) (analytics.Summary, error) {
	q, err := s.inScope(ctx, &requestRow{}, orgID, from, to)
	if err != nil {
		return analytics.Summary{}, err
	}
	var agg aggregateRow
	if err := q().Select("'' AS k, " + requestAggregates).Scan(&agg).Error; err != nil {
		return analytics.Summary{}, fmt.Errorf("sqlstore: summary: %w", err)
	}
	sum := analytics.Summary{
		Requests: agg.Requests, Errors: agg.Errors, CacheHits: agg.CacheHits, InputTokens: agg.InputTokens,
		OutputTokens: agg.OutputTokens, CostMicros: agg.CostMicros, BaselineMicros: agg.BaselineMicros,
		SavingsMicros: agg.SavingsMicros,
	}
	lat, err := percentiles(q(), "latency_ms", agg.Requests)
	if err != nil {
		return analytics.Summary{}, err
	}
	var nTTFB int64
	if err := q().Where("ttfb_ms > 0").Count(&nTTFB).Error; err != nil {
		return analytics.Summary{}, fmt.Errorf("sqlstore: summary: %w", err)
	}
	ttfb, err := percentiles(q().Where("ttfb_ms > 0"), "ttfb_ms", nTTFB)
	if err != nil {
		return analytics.Summary{}, err
	}
	sum.LatencyP50, sum.LatencyP95, sum.LatencyP99 = lat[0], lat[1], lat[2]
	sum.TTFBP50, sum.TTFBP95, sum.TTFBP99 = ttfb[0], ttfb[1], ttfb[2]
	sum.Rates()
	return sum, nil
}

// percentiles reads the analytics.Quantiles of column over q's n rows, each
// by its index in ascending order.
func percentiles(q *gorm.DB, column string, n int64) ([3]float64, error) {
	var out [3]float64
	for i, level := range analytics.Quantiles {
		idx := analytics.QuantileIndex(level, n)
		if idx < 0 {
			continue
		}
		var v []float64
		err := q.Session(&gorm.Session{}).Order(column+" ASC").Offset(int(idx)).Limit(1).Pluck(column, &v).Error
		if err != nil {
			return out, fmt.Errorf("sqlstore: percentile of %s: %w", column, err)
		}
		if len(v) == 1 {
			out[i] = v[0]
		}
	}
	return out, nil
}

// groupExpr is the text expression each request dimension groups by.
var groupExpr = map[analytics.Dimension]string{
	analytics.DimDay:       "CAST(time_ms / " + strconv.FormatInt(analytics.DayMillis, 10) + " AS TEXT)",
	analytics.DimModel:     "served_model",
	analytics.DimKey:       "key_id",
	analytics.DimUser:      "end_user",
	analytics.DimRouteKind: "route_kind",
	analytics.DimTag:       "tags", // expanded per tag by analytics.ExpandTags
}

// Breakdown implements analytics.Reader.
func (s *Store) Breakdown(ctx context.Context, orgID string, from, to time.Time, by analytics.Dimension) ([]analytics.BreakdownRow, error) {
	return analytics.CollectBreakdown(ctx, s, orgID, from, to, by)
}

// firstAttempts counts a failure reason's distinct requests as ClickHouse
// does (its marks, analytics/clickhouse/dedup.go): a request counts in the
// range that holds its first attempt with the reason (by time, then attempt
// index), found through the (org_id, request_id) index.
const firstAttempts = "COUNT(DISTINCT CASE WHEN NOT EXISTS (SELECT 1 FROM attempts p WHERE p.org_id = attempts.org_id" +
	" AND p.request_id = attempts.request_id AND p.reason = attempts.reason AND (p.time_ms < attempts.time_ms" +
	" OR (p.time_ms = attempts.time_ms AND p.attempt_index < attempts.attempt_index))) THEN request_id END)"

// EachBreakdown implements analytics.Reader: the database groups, orders
// and windows the rows, and they reach fn as the driver reads them.
func (s *Store) EachBreakdown(ctx context.Context, orgID string, q analytics.BreakdownQuery, fn func(analytics.BreakdownRow) error) error {
	if err := q.Check(); err != nil {
		return err
	}
	if q.By == analytics.DimTag {
		return s.eachTag(ctx, orgID, q, fn)
	}
	var model any = &requestRow{}
	if q.By == analytics.DimFailureReason {
		model = &attemptRow{}
	}
	scope, err := s.inScope(ctx, model, orgID, q.From, q.To)
	if err != nil {
		return err
	}
	// Keys order byte by byte as Go's strings do (Postgres' default
	// collation would not).
	key := groupExpr[q.By]
	if q.By == analytics.DimFailureReason {
		key = "reason"
	}
	if s.db.Dialector.Name() == "postgres" {
		key += ` COLLATE "C"`
	}
	db := scope()
	switch q.By {
	case analytics.DimFailureReason:
		db = db.Where("reason <> ''").
			Select("reason AS k, COUNT(*) AS attempts, " + firstAttempts + " AS requests, " + sumOf("cost_micros") + " AS cost_micros").
			Group("reason").Order("attempts DESC, " + key)
	case analytics.DimDay:
		db = db.Select(groupExpr[q.By] + " AS k, " + requestAggregates).Group(groupExpr[q.By]).Order("MIN(time_ms)")
	default:
		db = db.Select(groupExpr[q.By] + " AS k, " + requestAggregates).Group(groupExpr[q.By]).Order("requests DESC, " + key)
	}
	if q.Limit > 0 {
		db = db.Limit(q.Limit)
	}
	if q.Offset > 0 {
		db = db.Offset(q.Offset)
		if q.Limit <= 0 {
			db = db.Limit(math.MaxInt32) // SQLite takes OFFSET only after LIMIT
		}
	}
	rows, err := db.Rows()
	if err != nil {
		return fmt.Errorf("sqlstore: breakdown by %s: %w", q.By, err)
	}
	defer rows.Close()
	for rows.Next() {
		var a aggregateRow
		if err := s.db.ScanRows(rows, &a); err != nil {
			return fmt.Errorf("sqlstore: breakdown by %s: %w", q.By, err)
		}
		r := a.row()
		if q.By == analytics.DimDay {
			d, err := strconv.ParseInt(r.Key, 10, 64)
			if err != nil {
				return fmt.Errorf("sqlstore: day key %q: %w", r.Key, err)
			}
			r.Key = analytics.DayKey(d)
		}
		if q.By == analytics.DimFailureReason {
			r = analytics.BreakdownRow{Key: a.K, Attempts: a.Attempts, Requests: a.Requests, CostMicros: a.CostMicros}
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("sqlstore: breakdown by %s: %w", q.By, err)
	}
	return nil
}

// eachTag is EachBreakdown by tag: the database groups by the requests'
// comma-joined tag sets, which are few, and each set's sums count under each
// of its tags (analytics.ExpandTags); the tags are then ordered and windowed
// here, as the other dimensions are by the database.
func (s *Store) eachTag(ctx context.Context, orgID string, q analytics.BreakdownQuery, fn func(analytics.BreakdownRow) error) error {
	scope, err := s.inScope(ctx, &requestRow{}, orgID, q.From, q.To)
	if err != nil {
		return err
	}
	var aggs []aggregateRow
	if err := scope().Select("tags AS k, " + requestAggregates).Group("tags").Scan(&aggs).Error; err != nil {
		return fmt.Errorf("sqlstore: breakdown by %s: %w", q.By, err)
	}
	sets := make([]analytics.BreakdownRow, 0, len(aggs))
	for _, a := range aggs {
		sets = append(sets, a.row())
	}
	out := analytics.ExpandTags(sets)
	analytics.SortBreakdown(out, q.By)
	for i, r := range out {
		if i < q.Offset {
			continue
		}
		if q.Limit > 0 && i >= q.Offset+q.Limit {
			break
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}
