package clickhouse

import (
	"context"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/heddle-gw/heddle/analytics"
)

const requestSelect = `event_id, time_ms, request_id, org_id, key_id, end_user, session, format, requested_model,
served_model, provider, route_kind, decision, cache_hit, stream, fallback, attempts, input_tokens, output_tokens,
cache_read, cache_write, reasoning, cost_micros, baseline_micros, savings_micros, latency_ms, ttfb_ms, status,
error_code`

const attemptSelect = `event_id, time_ms, org_id, key_id, request_id, operation_id, purpose, policy_id, bundle_id,
bundle_revision, attempt_index, model, provider, upstream, credential_id, outcome, reason, status, latency_ms,
ttfb_ms, input_tokens, output_tokens, cache_read, cache_write, reasoning, cost_micros, stream`

// ListRequests implements analytics.Reader.
func (s *Store) ListRequests(ctx context.Context, orgID string, f analytics.RequestFilter, cursor string, limit int) (analytics.RequestPage, error) {
	lq, err := analytics.PrepareList(orgID, f, cursor, limit)
	if err != nil {
		return analytics.RequestPage{}, err
	}
	orgID, f, fromMs, toMs, cur, hasCur, limit := lq.OrgID, lq.Filter, lq.FromMs, lq.ToMs, lq.Cursor, lq.HasCursor, lq.Limit
	w := &where{}
	w.add("org_id = ?", orgID)
	w.timeRange(fromMs, toMs)
	filterRequests(w, f)
	if hasCur {
		w.add("(time_ms < ? OR (time_ms = ? AND event_id < ?))", cur.TimeMs, cur.TimeMs, cur.EventID)
	}
	q := "SELECT " + requestSelect + " FROM requests FINAL" + w.String() +
		fmt.Sprintf(" ORDER BY time_ms DESC, event_id DESC LIMIT %d", limit+1)
	rows, err := s.queryRequests(ctx, q, w.args...)
	if err != nil {
		return analytics.RequestPage{}, err
	}
	page := analytics.RequestPage{Requests: rows}
	if len(rows) > limit {
		page.Requests = rows[:limit]
		page.Next = analytics.CursorAfter(rows[limit-1]).Encode()
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

// Timeline implements analytics.Reader.
func (s *Store) Timeline(ctx context.Context, orgID, requestID string) (analytics.RequestTimeline, error) {
	if err := analytics.CheckOrg(orgID); err != nil {
		return analytics.RequestTimeline{}, err
	}
	orgID, requestID = analytics.CleanText(orgID), analytics.CleanText(requestID)
	var tl analytics.RequestTimeline
	reqs, err := s.queryRequests(ctx, "SELECT "+requestSelect+
		" FROM requests FINAL WHERE org_id = ? AND request_id = ? ORDER BY time_ms DESC, event_id DESC LIMIT 1",
		orgID, requestID)
	if err != nil {
		return tl, err
	}
	if len(reqs) > 0 {
		tl.Request = &reqs[0]
	}
	rows, err := s.conn.Query(ctx, "SELECT "+attemptSelect+
		" FROM attempts FINAL WHERE org_id = ? AND request_id = ?", orgID, requestID)
	if err != nil {
		return tl, fmt.Errorf("clickhouse: query attempts: %w", err)
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
		return tl, fmt.Errorf("clickhouse: read attempts: %w", err)
	}
	if tl.Request == nil && len(tl.Attempts) == 0 {
		return tl, fmt.Errorf("%w: request %q", analytics.ErrNotFound, requestID)
	}
	analytics.SortAttempts(tl.Attempts)
	return tl, nil
}

func (s *Store) queryRequests(ctx context.Context, q string, args ...any) ([]analytics.Request, error) {
	rows, err := s.conn.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("clickhouse: query requests: %w", err)
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
			&r.BaselineMicros, &r.SavingsMicros, &r.LatencyMs, &r.TTFBMs, &status, &r.ErrorCode); err != nil {
			return nil, fmt.Errorf("clickhouse: scan request: %w", err)
		}
		r.Time = time.UnixMilli(ms).UTC()
		r.CacheHit, r.Stream, r.Fallback = hit != 0, stream != 0, fallback != 0
		r.Attempts, r.Status = int(attempts), int(status)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("clickhouse: read requests: %w", err)
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
