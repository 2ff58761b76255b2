package analyticstest

import (
	"context"
	"fmt"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

// Breakdown implements analytics.Reader.
func (s *Store) Breakdown(_ context.Context, orgID string, from, to time.Time, by analytics.Dimension) ([]analytics.BreakdownRow, error) {
	rows, err := s.inRange(orgID, from, to)
	if err != nil {
		return nil, err
	}
	if !by.Valid() {
		return nil, fmt.Errorf("%w: %q", analytics.ErrInvalidDimension, by)
	}
	if by == analytics.DimFailureReason {
		return s.failureReasons(orgID, from, to)
	}
	groups := map[string]*analytics.BreakdownRow{}
	var out []analytics.BreakdownRow
	for _, r := range rows {
		key := groupKey(r, by)
		g := groups[key]
		if g == nil {
			g = &analytics.BreakdownRow{Key: key}
			groups[key] = g
		}
		g.Requests++
		if r.Failed() {
			g.Errors++
		}
		if r.CacheHit {
			g.CacheHits++
		}
		g.Attempts += int64(r.Attempts)
		g.InputTokens += r.InputTokens
		g.OutputTokens += r.OutputTokens
		g.CostMicros += r.CostMicros
		g.BaselineMicros += r.BaselineMicros
		g.SavingsMicros += r.SavingsMicros
		g.LatencyMeanMs += r.LatencyMs // a sum until the loop below
	}
	for _, g := range groups {
		g.LatencyMeanMs /= float64(g.Requests)
		out = append(out, *g)
	}
	if by == analytics.DimTag {
		return analytics.ExpandTags(out), nil
	}
	analytics.SortBreakdown(out, by)
	return out, nil
}

func groupKey(r analytics.Request, by analytics.Dimension) string {
	switch by {
	case analytics.DimDay:
		return analytics.DayKey(r.Time.UnixMilli() / analytics.DayMillis)
	case analytics.DimModel:
		return r.ServedModel
	case analytics.DimKey:
		return r.KeyID
	case analytics.DimUser:
		return r.User
	case analytics.DimTag:
		return r.Tags // expanded per tag by analytics.ExpandTags
	default:
		return r.RouteKind
	}
}

// failureReasons groups the organisation's attempts with a reason; a
// request counts under a reason in the range that holds its first attempt
// with the reason (by time, then attempt index), as the stores count it.
func (s *Store) failureReasons(orgID string, from, to time.Time) ([]analytics.BreakdownRow, error) {
	fromMs, toMs, err := analytics.RangeMillis(from, to)
	if err != nil {
		return nil, err
	}
	orgID = analytics.CleanText(orgID)
	type pair struct{ request, reason string }
	first := map[pair]analytics.Attempt{}
	for _, a := range s.Attempts() {
		if a.OrgID != orgID || a.Reason == "" {
			continue
		}
		k := pair{a.RequestID, a.Reason}
		if f, ok := first[k]; !ok || a.Time.Before(f.Time) || (a.Time.Equal(f.Time) && a.AttemptIndex < f.AttemptIndex) {
			first[k] = a
		}
	}
	groups := map[string]*analytics.BreakdownRow{}
	for _, a := range s.Attempts() {
		ms := a.Time.UnixMilli()
		if a.OrgID != orgID || a.Reason == "" || ms < fromMs || ms >= toMs {
			continue
		}
		g := groups[a.Reason]
		if g == nil {
			g = &analytics.BreakdownRow{Key: a.Reason}
			groups[a.Reason] = g
		}
		g.Attempts++
		g.CostMicros += a.CostMicros
		if f := first[pair{a.RequestID, a.Reason}]; f.EventID == a.EventID {
			g.Requests++
		}
	}
	out := make([]analytics.BreakdownRow, 0, len(groups))
	for _, g := range groups {
		out = append(out, *g)
	}
	analytics.SortBreakdown(out, analytics.DimFailureReason)
	return out, nil
}

// EachBreakdown implements analytics.Reader.
func (s *Store) EachBreakdown(ctx context.Context, orgID string, q analytics.BreakdownQuery, fn func(analytics.BreakdownRow) error) error {
	if err := q.Check(); err != nil {
		return err
	}
	all, err := s.Breakdown(ctx, orgID, q.From, q.To, q.By)
	if err != nil {
		return err
	}
	for _, r := range q.Window(all) {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}
