package analyticstest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

// ListRequests implements analytics.Reader.
func (s *Store) ListRequests(_ context.Context, orgID string, f analytics.RequestFilter, cursor string, limit int) (analytics.RequestPage, error) {
	lq, err := analytics.PrepareList(orgID, f, cursor, limit)
	if err != nil {
		return analytics.RequestPage{}, err
	}
	orgID, f, fromMs, toMs, cur, hasCur, limit := lq.OrgID, lq.Filter, lq.FromMs, lq.ToMs, lq.Cursor, lq.HasCursor, lq.Limit
	var rows []analytics.Request
	for _, r := range s.Requests() {
		ms := r.Time.UnixMilli()
		if r.OrgID != orgID || ms < fromMs || ms >= toMs || !matches(r, f) {
			continue
		}
		if hasCur && !cur.Before(ms, r.EventID) {
			continue
		}
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if !a.Time.Equal(b.Time) {
			return a.Time.After(b.Time)
		}
		return a.EventID > b.EventID
	})
	page := analytics.RequestPage{}
	if len(rows) > limit {
		rows = rows[:limit]
		page.Next = analytics.CursorAfter(rows[limit-1]).Encode()
	}
	page.Requests = rows
	return page, nil
}

func matches(r analytics.Request, f analytics.RequestFilter) bool {
	switch {
	case f.KeyID != "" && r.KeyID != f.KeyID,
		f.Model != "" && r.ServedModel != f.Model && r.RequestedModel != f.Model,
		f.RouteKind != "" && r.RouteKind != f.RouteKind,
		f.User != "" && r.User != f.User,
		f.Status != 0 && r.Status != f.Status,
		f.ErrorCode != "" && r.ErrorCode != f.ErrorCode,
		f.ErrorsOnly && !r.Failed(),
		f.OKOnly && r.Failed():
		return false
	}
	return true
}

// Timeline implements analytics.Reader.
func (s *Store) Timeline(_ context.Context, orgID, requestID string) (analytics.RequestTimeline, error) {
	if err := analytics.CheckOrg(orgID); err != nil {
		return analytics.RequestTimeline{}, err
	}
	orgID, requestID = analytics.CleanText(orgID), analytics.CleanText(requestID)
	var tl analytics.RequestTimeline
	for _, r := range s.Requests() {
		if r.OrgID == orgID && r.RequestID == requestID {
			// Several rows for one request id cannot happen through the
			// gateway; keep the newest, as the SQL stores do.
			if tl.Request == nil || r.Time.After(tl.Request.Time) {
				tl.Request = &r
			}
		}
	}
	for _, a := range s.Attempts() {
		if a.OrgID == orgID && a.RequestID == requestID {
			tl.Attempts = append(tl.Attempts, a)
		}
	}
	if tl.Request == nil && len(tl.Attempts) == 0 {
		return analytics.RequestTimeline{}, fmt.Errorf("%w: request %q", analytics.ErrNotFound, requestID)
	}
	analytics.SortAttempts(tl.Attempts)
	return tl, nil
}

// inRange returns the organisation's requests in [from, to).
func (s *Store) inRange(orgID string, from, to time.Time) ([]analytics.Request, error) {
	if err := analytics.CheckOrg(orgID); err != nil {
		return nil, err
	}
	orgID = analytics.CleanText(orgID)
	fromMs, toMs, err := analytics.RangeMillis(from, to)
	if err != nil {
		return nil, err
	}
	var rows []analytics.Request
	for _, r := range s.Requests() {
		if ms := r.Time.UnixMilli(); r.OrgID == orgID && ms >= fromMs && ms < toMs {
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// Summary implements analytics.Reader.
func (s *Store) Summary(_ context.Context, orgID string, from, to time.Time) (analytics.Summary, error) {
	rows, err := s.inRange(orgID, from, to)
	if err != nil {
		return analytics.Summary{}, err
	}
	var sum analytics.Summary
	var lat, ttfb []float64
	for _, r := range rows {
		sum.Requests++
		if r.Failed() {
			sum.Errors++
		}
		if r.CacheHit {
			sum.CacheHits++
		}
		sum.InputTokens += r.InputTokens
		sum.OutputTokens += r.OutputTokens
		sum.CostMicros += r.CostMicros
		sum.BaselineMicros += r.BaselineMicros
		sum.SavingsMicros += r.SavingsMicros
		lat = append(lat, r.LatencyMs)
		if r.TTFBMs > 0 {
			ttfb = append(ttfb, r.TTFBMs)
		}
	}
	slices.Sort(lat)
	slices.Sort(ttfb)
	q := analytics.Quantiles
	sum.LatencyP50, sum.LatencyP95, sum.LatencyP99 = analytics.Quantile(lat, q[0]), analytics.Quantile(lat, q[1]), analytics.Quantile(lat, q[2])
	sum.TTFBP50, sum.TTFBP95, sum.TTFBP99 = analytics.Quantile(ttfb, q[0]), analytics.Quantile(ttfb, q[1]), analytics.Quantile(ttfb, q[2])
	sum.Rates()
	return sum, nil
}
