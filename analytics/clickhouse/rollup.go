package clickhouse

import (
	"context"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

// A rollup is a table a materialized view aggregates on insert (migrations
// 00004-00006): Breakdown reads it for the whole grains of a range after its
// epoch, and the raw table for the partial grains at the edges and for rows
// older than the epoch. table also names its heddle_rollup_epoch row.
type rollup struct {
	table   string
	timeCol string // the grain's start, a Unix-time DateTime
	grainMs int64
	expr    map[analytics.Dimension]string // the group key over the rollup's columns
	// finer answers for the whole grains of its own in the parts this one
	// leaves (the edges of a range); nil: the raw table does.
	finer *rollup
}

const (
	hourMs = int64(time.Hour / time.Millisecond)
	dayMs  = analytics.DayMillis
	weekMs = 7 * dayMs
)

// Users are many: a day (a report's grain) gathers several requests of an
// active user where an hour would not, and a week most of them.
var dailyUser = rollup{"requests_daily_user", "day", dayMs, map[analytics.Dimension]string{analytics.DimUser: "end_user"}, nil}

// Most of an active user's requests in a week gather in one row.
var weeklyUser = rollup{"requests_weekly_user", "week", weekMs, map[analytics.Dimension]string{analytics.DimUser: "end_user"}, &dailyUser}

// The weekly rollup by user keyed by the user's hashes (migration 00017),
// for the pages by user only (rankUsers, then their sums): not in rollups.
var weeklyUserRank = rollup{"requests_weekly_user_rank", "week", weekMs, map[analytics.Dimension]string{analytics.DimUser: "end_user"}, &weeklyUser}

// Failed attempts per reason and hour: the edges of a range the daily
// rollup leaves.
var hourlyReason = rollup{"attempts_hourly_reason_exact", "hour", hourMs, map[analytics.Dimension]string{analytics.DimFailureReason: "reason"}, nil}

var rollups = []rollup{
	{"requests_hourly", "hour", hourMs, map[analytics.Dimension]string{
		analytics.DimDay:       "toString(intDiv(toUInt32(hour), 86400))",
		analytics.DimModel:     "served_model",
		analytics.DimKey:       "key_id",
		analytics.DimRouteKind: "route_kind",
	}, nil},
	weeklyUser,
	// Distinct failed requests as sums of marks (migration 00015).
	{"attempts_daily_reason_exact", "day", dayMs, map[analytics.Dimension]string{analytics.DimFailureReason: "reason"}, &hourlyReason},
}

// rollupFor returns the rollup that answers for by.
func rollupFor(by analytics.Dimension) (rollup, bool) {
	for _, r := range rollups {
		if _, ok := r.expr[by]; ok {
			return r, true
		}
	}
	return rollup{}, false
}

// span is a half-open range of Unix milliseconds; ok is false for none.
type span struct {
	from, to int64
	ok       bool
}

// rolledPart is the part of a range one rollup answers for.
type rolledPart struct {
	r  rollup
	sp span
}

// plan divides [fromMs, toMs) among r, the finer rollups under it (each for
// the whole grains of its own in what the coarser one leaves) and the raw
// table (the rest).
func (s *Store) plan(ctx context.Context, fromMs, toMs int64, r rollup) ([]rolledPart, []span, error) {
	sp, rest, err := s.split(ctx, fromMs, toMs, r)
	if err != nil {
		return nil, nil, err
	}
	var parts []rolledPart
	if sp.ok {
		parts = append(parts, rolledPart{r, sp})
	}
	if r.finer == nil {
		return parts, rest, nil
	}
	var raw []span
	for _, e := range rest {
		p, rw, err := s.plan(ctx, e.from, e.to, *r.finer)
		if err != nil {
			return nil, nil, err
		}
		parts, raw = append(parts, p...), append(raw, rw...)
	}
	return parts, raw, nil
}

// split divides [fromMs, toMs) into the part rollup r answers for (the whole
// grains from its start on) and the raw parts around it.
func (s *Store) split(ctx context.Context, fromMs, toMs int64, r rollup) (span, []span, error) {
	whole := []span{{from: fromMs, to: toMs, ok: true}}
	startMs, err := s.rollupStart(ctx, r)
	if err != nil || startMs < 0 {
		return span{}, whole, err
	}
	lo := max(ceilTo(fromMs, r.grainMs), startMs)
	hi := toMs
	if toMs != math.MaxInt64 {
		hi = toMs / r.grainMs * r.grainMs
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

func ceilTo(ms, grain int64) int64 { return (ms + grain - 1) / grain * grain }

// epochs caches each rollup's start once read: the earliest epoch never
// moves.
type epochs struct{ m sync.Map } // table -> int64

// rollupStart returns the first Unix millisecond from which every row is in
// r: the grain after the hour after its earliest epoch (an hour for
// replicas' clocks: a row's time is its arrival, never after its insert).
// -1 when r has no epoch (not migrated).
func (s *Store) rollupStart(ctx context.Context, r rollup) (int64, error) {
	if v, ok := s.epochs.m.Load(r.table); ok {
		return v.(int64), nil
	}
	var (
		since time.Time
		n     uint64
	)
	if err := s.conn.QueryRow(s.readCtx(ctx), "SELECT min(since), count() FROM heddle_rollup_epoch WHERE name = ?", r.table).
		Scan(&since, &n); err != nil {
		return 0, readErr("rollup epoch", err)
	}
	if n == 0 {
		return -1, nil
	}
	start := ceilTo(ceilTo(since.UnixMilli(), hourMs)+hourMs, r.grainMs)
	s.epochs.m.Store(r.table, start)
	return start, nil
}

// where is the WHERE clause of org's rows of r in sp.
func (r rollup) where(org string, sp span) *where {
	w := &where{}
	w.add("org_id = ?", org)
	w.add(r.timeCol+" >= toDateTime(?)", sp.from/1000)
	if sp.to != math.MaxInt64 {
		w.add(r.timeCol+" < toDateTime(?)", sp.to/1000)
	}
	return w
}

// limitClause renders q's window ("" for all rows).
func limitClause(q analytics.BreakdownQuery) string {
	switch {
	case q.Limit > 0:
		return " LIMIT " + strconv.Itoa(q.Offset) + ", " + strconv.Itoa(q.Limit)
	case q.Offset > 0:
		// 18.16 fails on a count near MaxInt64 (offset + count overflows).
		return " LIMIT " + strconv.Itoa(q.Offset) + ", " + strconv.FormatInt(1<<40, 10)
	}
	return ""
}
