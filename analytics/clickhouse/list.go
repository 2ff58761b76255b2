package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/google/uuid"

	"github.com/heddle-gw/heddle/analytics"
)

const requestSelect = `event_id, time_ms, request_id, org_id, key_id, end_user, session, format, requested_model,
served_model, provider, route_kind, decision, cache_hit, stream, fallback, attempts, input_tokens, output_tokens,
cache_read, cache_write, reasoning, cost_micros, baseline_micros, savings_micros, latency_ms, ttfb_ms, status,
error_code, tags, baseline_model, candidates`

const attemptSelect = `event_id, time_ms, org_id, key_id, request_id, operation_id, purpose, policy_id, bundle_id,
bundle_revision, attempt_index, model, provider, upstream, credential_id, outcome, reason, status, latency_ms,
ttfb_ms, input_tokens, output_tokens, cache_read, cache_write, reasoning, cost_micros, stream`

// newestFirst orders rows as the explorer pages them and keeps one row per
// event id: a row replayed from a spill segment is read once without FINAL
// (which costs 4-14x here). Rows of one event share their time, so a
// duplicate always falls in the same window as its original.
const newestFirst = " ORDER BY time_ms DESC, event_id DESC LIMIT 1 BY event_id"

// The explorer reads the newest window first and widens it by windowGrowth
// until the page is full or the range is exhausted; its last window reaches
// back to the range's start. The first window is a minute behind now (or
// behind the cursor), so a page reads what it needs, not a fixed span of
// the organisation: a busy organisation fills the page from its last
// minute, a quiet one widens through 8 minutes, an hour, 8 hours, 3 days,
// 23 days and half a year. A filter that matches few rows would read the
// whole organisation: after listReadBudget rows read the search stops (the
// next window is narrowed to what is left of the budget, at the density
// read so far) and the page says where it stopped (SearchedFrom) and
// continues older (Next).
const (
	firstWindowMs  = int64(time.Minute / time.Millisecond)
	windowGrowth   = 8
	maxWindows     = 8
	listReadBudget = 1_000_000
	// futureSkew is how far ahead of this replica's clock another's rows
	// may be.
	futureSkew = 5 * time.Minute
)

// ListRequests implements analytics.Reader.
func (s *Store) ListRequests(ctx context.Context, orgID string, f analytics.RequestFilter, cursor string, limit int) (analytics.RequestPage, error) {
	lq, err := analytics.PrepareList(orgID, f, cursor, limit)
	if err != nil {
		return analytics.RequestPage{}, err
	}
	hi := lq.ToMs
	if lq.HasCursor && lq.Cursor.TimeMs < hi { // + 1 cannot overflow
		hi = lq.Cursor.TimeMs + 1
	}
	// The windows widen back from now at the latest: rows are not written
	// ahead of the clock (beyond replicas' skew), so a cursor or a range
	// end far in the future would spend the windows on empty time and
	// leave the last one, which reaches back to the range's start, to read
	// the organisation with no budget.
	now := s.now()
	anchor := min(hi, now.Add(futureSkew).UnixMilli())
	// The first window's width is counted back from now, not from the
	// skew's end: rows ahead of the clock are rare, so a minute counted
	// from now + 5 min would mostly read empty time.
	start := min(anchor, now.UnixMilli())
	var read atomic.Int64 // rows ClickHouse read for this page
	ctx = ch.Context(ctx, ch.WithProgress(func(p *ch.Progress) { read.Add(int64(p.Rows)) }))
	var (
		rows    []analytics.Request
		stopped bool
	)
	width := firstWindowMs
	lo := start - width
	for i := 1; ; i++ {
		if i == maxWindows || lo <= lq.FromMs {
			lo = lq.FromMs
		}
		w := &where{}
		w.add("org_id = ?", lq.OrgID)
		w.timeRange(lo, hi)
		if lq.HasCursor {
			w.add("(time_ms < ? OR (time_ms = ? AND event_id < ?))", lq.Cursor.TimeMs, lq.Cursor.TimeMs, lq.Cursor.EventID)
		}
		// The filter is the PREWHERE: ClickHouse would otherwise move the
		// time_ms bound there (its smallest column, passing every row) and
		// read all the columns of every row (4x slower for a rare match).
		pre := &where{}
		filterRequests(pre, lq.Filter)
		q := "SELECT " + requestSelect + " FROM requests" + pre.prewhere() + w.String() + newestFirst +
			fmt.Sprintf(" LIMIT %d", lq.Limit+1-len(rows))
		got, err := s.queryRequests(ctx, q, append(pre.args, w.args...)...)
		if err != nil {
			return analytics.RequestPage{}, err
		}
		rows = append(rows, got...)
		if len(rows) > lq.Limit || lo <= lq.FromMs {
			break
		}
		left := s.listBudget - read.Load()
		if left < s.listBudget/8 {
			stopped = true
			break
		}
		hi, width = lo, width*windowGrowth
		if n := read.Load(); n > 0 {
			// rows per millisecond so far, assumed for the next window
			width = min(width, max(left*max(start-hi, 1)/n, firstWindowMs))
		}
		lo = hi - width
	}
	page := analytics.RequestPage{Requests: rows}
	switch {
	case len(rows) > lq.Limit:
		page.Requests = rows[:lq.Limit]
		page.Next = analytics.CursorAfter(rows[lq.Limit-1]).Encode()
	case stopped:
		page.Next = analytics.CursorBefore(lo).Encode()
		page.SearchedFrom = time.UnixMilli(lo).UTC()
	}
	return page, nil
}

func filterRequests(w *where, f analytics.RequestFilter) {
	if f.KeyID != "" {
		w.add("key_id = ?", f.KeyID)
	}
	if f.Model != "" {
		w.add("(served_model = ? OR requested_model = ?)", f.Model, f.Model)
	}
	if f.RouteKind != "" {
		w.add("route_kind = ?", f.RouteKind)
	}
	if f.User != "" {
		w.add("end_user = ?", f.User)
	}
	if f.Status != 0 {
		w.add("status = ?", int32(f.Status))
	}
	if f.ErrorCode != "" {
		w.add("error_code = ?", f.ErrorCode)
	}
	if f.ErrorsOnly {
		w.add(failed)
	}
	if f.OKOnly {
		w.add("NOT " + failed)
	}
}

// A request's rows are written between its arrival and its end; a request id
// that is a UUIDv7 (every id Heddle issues) carries its arrival time, so the
// timeline reads [arrival - skew, arrival + span) for each span in turn until
// it finds the request (the first covers all but very long streams).
var timelineSpans = []time.Duration{time.Hour, 24 * time.Hour}

const timelineSkew = 5 * time.Minute

// requestTime returns the arrival time a UUIDv7 request id carries; ok is
// false for an id that carries none (then the whole organisation is searched).
func requestTime(requestID string) (at time.Time, ok bool) {
	id, err := uuid.Parse(requestID)
	if err != nil || id.Version() != 7 {
		return time.Time{}, false
	}
	sec, nsec := id.Time().UnixTime()
	return time.Unix(sec, nsec), true
}

// Timeline implements analytics.Reader.
func (s *Store) Timeline(ctx context.Context, orgID, requestID string) (analytics.RequestTimeline, error) {
	if err := analytics.CheckOrg(orgID); err != nil {
		return analytics.RequestTimeline{}, err
	}
	orgID, requestID = analytics.CleanText(orgID), analytics.CleanText(requestID)
	at, bounded := requestTime(requestID)
	if !bounded {
		return s.timeline(ctx, orgID, requestID, 0, math.MaxInt64)
	}
	var err error
	for _, span := range timelineSpans {
		var tl analytics.RequestTimeline
		from := max(at.Add(-timelineSkew).UnixMilli(), 0)
		if tl, err = s.timeline(ctx, orgID, requestID, from, at.Add(span).UnixMilli()); err == nil {
			return tl, nil
		}
		if !errors.Is(err, analytics.ErrNotFound) {
			return tl, err
		}
	}
	return analytics.RequestTimeline{}, err
}

// timeline reads one request's rows in [fromMs, toMs).
func (s *Store) timeline(ctx context.Context, orgID, requestID string, fromMs, toMs int64) (analytics.RequestTimeline, error) {
	w := &where{}
	w.add("org_id = ?", orgID)
	w.timeRange(fromMs, toMs)
	w.add("request_id = ?", requestID)
	pre := &where{} // the request's rows first, as the explorer's filter
	pre.add("request_id = ?", requestID)
	var tl analytics.RequestTimeline
	reqs, err := s.queryRequests(ctx, "SELECT "+requestSelect+" FROM requests"+pre.prewhere()+w.String()+newestFirst+" LIMIT 1",
		append(pre.args, w.args...)...)
	if err != nil {
		return tl, err
	}
	if len(reqs) > 0 {
		tl.Request = &reqs[0]
	}
	rows, err := s.conn.Query(s.readCtx(ctx), "SELECT "+attemptSelect+" FROM attempts"+w.String()+
		" LIMIT 1 BY event_id", w.args...)
	if err != nil {
		return tl, readErr("query attempts", err)
	}
	defer rows.Close()
	for rows.Next() {
		a, err := scanAttempt(rows)
		if err != nil {
			return tl, err
		}
		tl.Attempts = append(tl.Attempts, a)
	}
	if err := rows.Err(); err != nil {
		return tl, readErr("read attempts", err)
	}
	if tl.Request == nil && len(tl.Attempts) == 0 {
		return tl, fmt.Errorf("%w: request %q", analytics.ErrNotFound, requestID)
	}
	analytics.SortAttempts(tl.Attempts)
	return tl, nil
}

func (s *Store) queryRequests(ctx context.Context, q string, args ...any) ([]analytics.Request, error) {
	rows, err := s.conn.Query(s.readCtx(ctx), q, args...)
	if err != nil {
		return nil, readErr("query requests", err)
	}
	defer rows.Close()
	var out []analytics.Request
	for rows.Next() {
		var (
			r                     analytics.Request
			ms                    int64
			hit, stream, fallback uint8
			attempts, status      int32
		)
		if err := rows.Scan(&r.EventID, &ms, &r.RequestID, &r.OrgID, &r.KeyID, &r.User, &r.Session, &r.Format,
			&r.RequestedModel, &r.ServedModel, &r.Provider, &r.RouteKind, &r.Decision, &hit, &stream, &fallback,
			&attempts, &r.InputTokens, &r.OutputTokens, &r.CacheRead, &r.CacheWrite, &r.Reasoning, &r.CostMicros,
			&r.BaselineMicros, &r.SavingsMicros, &r.LatencyMs, &r.TTFBMs, &status, &r.ErrorCode, &r.Tags, &r.BaselineModel, &r.Candidates); err != nil {
			return nil, fmt.Errorf("clickhouse: scan request: %w", err)
		}
		r.Time = time.UnixMilli(ms).UTC()
		r.CacheHit, r.Stream, r.Fallback = hit != 0, stream != 0, fallback != 0
		r.Attempts, r.Status = int(attempts), int(status)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, readErr("read requests", err)
	}
	return out, nil
}

func scanAttempt(rows driver.Rows) (analytics.Attempt, error) {
	var (
		a           analytics.Attempt
		ms          int64
		idx, status int32
		stream      uint8
	)
	if err := rows.Scan(&a.EventID, &ms, &a.OrgID, &a.KeyID, &a.RequestID, &a.OperationID, &a.Purpose, &a.PolicyID,
		&a.BundleID, &a.BundleRevision, &idx, &a.Model, &a.Provider, &a.Upstream, &a.CredentialID, &a.Outcome,
		&a.Reason, &status, &a.LatencyMs, &a.TTFBMs, &a.InputTokens, &a.OutputTokens, &a.CacheRead, &a.CacheWrite,
		&a.Reasoning, &a.CostMicros, &stream); err != nil {
		return a, fmt.Errorf("clickhouse: scan attempt: %w", err)
	}
	a.Time = time.UnixMilli(ms).UTC()
	a.AttemptIndex, a.Status, a.Stream = int(idx), int(status), stream != 0
	return a, nil
}
