package sqlstore

import (
	"context"
	"fmt"
	"math"
	"strings"

	"gorm.io/gorm"

	"github.com/heddle-gw/heddle/analytics"
)

// scoped narrows a query to the organisation's rows in [fromMs, toMs).
func scoped(q *gorm.DB, orgID string, fromMs, toMs int64) *gorm.DB {
	q = q.Where("org_id = ?", analytics.CleanText(orgID))
	if fromMs > 0 {
		q = q.Where("time_ms >= ?", fromMs)
	}
	if toMs != math.MaxInt64 {
		q = q.Where("time_ms < ?", toMs)
	}
	return q
}

// ListRequests implements analytics.Reader.
func (s *Store) ListRequests(ctx context.Context, orgID string, f analytics.RequestFilter, cursor string, limit int) (analytics.RequestPage, error) {
	lq, err := analytics.PrepareList(orgID, f, cursor, limit)
	if err != nil {
		return analytics.RequestPage{}, err
	}
	orgID, f, fromMs, toMs, cur, hasCur, limit := lq.OrgID, lq.Filter, lq.FromMs, lq.ToMs, lq.Cursor, lq.HasCursor, lq.Limit
	q := scoped(s.db.WithContext(ctx).Model(&requestRow{}), orgID, fromMs, toMs)
	q = filterRequests(q, f)
	if hasCur {
		if id, _, nul := strings.Cut(cur.EventID, "\x00"); nul {
			// Postgres text holds no NUL (CursorBefore's, or a crafted
			// cursor's): an id without one sorts before id+"\x00..." exactly
			// when it sorts at or before id.
			q = q.Where("(time_ms < ? OR (time_ms = ? AND event_id <= ?))", cur.TimeMs, cur.TimeMs, id)
		} else {
			q = q.Where("(time_ms < ? OR (time_ms = ? AND event_id < ?))", cur.TimeMs, cur.TimeMs, cur.EventID)
		}
	}
	var rows []requestRow
	if err := q.Order("time_ms DESC, event_id DESC").Limit(limit + 1).Find(&rows).Error; err != nil {
		return analytics.RequestPage{}, fmt.Errorf("sqlstore: list requests: %w", err)
	}
	page := analytics.RequestPage{}
	for i, r := range rows {
		if i == limit {
			page.Next = analytics.CursorAfter(page.Requests[limit-1]).Encode()
			break
		}
		page.Requests = append(page.Requests, r.request())
	}
	return page, nil
}

func filterRequests(q *gorm.DB, f analytics.RequestFilter) *gorm.DB {
	if f.KeyID != "" {
		q = q.Where("key_id = ?", f.KeyID)
	}
	if f.Model != "" {
		q = q.Where("(served_model = ? OR requested_model = ?)", f.Model, f.Model)
	}
	if f.RouteKind != "" {
		q = q.Where("route_kind = ?", f.RouteKind)
	}
	if f.User != "" {
		q = q.Where("end_user = ?", f.User)
	}
	if f.Status != 0 {
		q = q.Where("status = ?", f.Status)
	}
	if f.ErrorCode != "" {
		q = q.Where("error_code = ?", f.ErrorCode)
	}
	if f.ErrorsOnly {
		q = q.Where(failed)
	}
	if f.OKOnly {
		q = q.Where("NOT " + failed)
	}
	return q
}

// Timeline implements analytics.Reader.
func (s *Store) Timeline(ctx context.Context, orgID, requestID string) (analytics.RequestTimeline, error) {
	if err := analytics.CheckOrg(orgID); err != nil {
		return analytics.RequestTimeline{}, err
	}
	orgID, requestID = analytics.CleanText(orgID), analytics.CleanText(requestID)
	var tl analytics.RequestTimeline
	var reqs []requestRow
	err := timelineRequest(s.db.WithContext(ctx), orgID, requestID).Find(&reqs).Error
	if err != nil {
		return tl, fmt.Errorf("sqlstore: timeline request: %w", err)
	}
	if len(reqs) > 0 {
		r := reqs[0].request()
		tl.Request = &r
	}
	var atts []attemptRow
	if err := s.db.WithContext(ctx).Where("org_id = ? AND request_id = ?", orgID, requestID).Find(&atts).Error; err != nil {
		return tl, fmt.Errorf("sqlstore: timeline attempts: %w", err)
	}
	for _, a := range atts {
		tl.Attempts = append(tl.Attempts, a.attempt())
	}
	if tl.Request == nil && len(tl.Attempts) == 0 {
		return tl, fmt.Errorf("%w: request %q", analytics.ErrNotFound, requestID)
	}
	analytics.SortAttempts(tl.Attempts)
	return tl, nil
}

// timelineRequest selects the latest row recorded for one request. The sort
// key is an expression ("+ 0") so that no index can deliver the order: with
// "ORDER BY time_ms DESC" SQLite (and Postgres, on an empty table) walks
// requests_org_time_idx backwards through the organisation's rows to skip the
// sort (SQLite: 103 ms at 20,000 rows, against 0.2 ms), where
// requests_org_request_idx finds the request's few rows at once.
func timelineRequest(q *gorm.DB, orgID, requestID string) *gorm.DB {
	return q.Where("org_id = ? AND request_id = ?", orgID, requestID).
		Order("time_ms + 0 DESC, event_id DESC").Limit(1)
}
