package analytics

import (
	"context"
	"fmt"
	"time"
)

// BreakdownQuery selects rows of a Breakdown: the rows of [From, To)
// grouped By one dimension, in the order Dimension documents, from row
// Offset on and at most Limit of them (Limit <= 0: all of them).
type BreakdownQuery struct {
	From, To time.Time
	By       Dimension
	Offset   int
	Limit    int
}

// Check returns ErrInvalidRange, ErrInvalidDimension or ErrInvalidPage for a
// query no store can answer; every store calls it first.
func (q BreakdownQuery) Check() error {
	if _, _, err := RangeMillis(q.From, q.To); err != nil {
		return err
	}
	if !q.By.Valid() {
		return fmt.Errorf("%w: %q", ErrInvalidDimension, q.By)
	}
	if q.Offset < 0 {
		return fmt.Errorf("%w: offset %d", ErrInvalidPage, q.Offset)
	}
	return nil
}

// Window returns the rows of all that q's Offset and Limit select, for
// stores that hold the whole result anyway.
func (q BreakdownQuery) Window(all []BreakdownRow) []BreakdownRow {
	if q.Offset >= len(all) {
		return nil
	}
	all = all[q.Offset:]
	if q.Limit > 0 && q.Limit < len(all) {
		all = all[:q.Limit]
	}
	return all
}

// RowStreamer is the part of Reader that streams a breakdown's rows.
type RowStreamer interface {
	EachBreakdown(ctx context.Context, orgID string, q BreakdownQuery, fn func(BreakdownRow) error) error
}

// CollectBreakdown returns every row of a breakdown that r streams: the
// stores' Breakdown.
func CollectBreakdown(ctx context.Context, r RowStreamer, orgID string, from, to time.Time, by Dimension) ([]BreakdownRow, error) {
	var out []BreakdownRow
	err := r.EachBreakdown(ctx, orgID, BreakdownQuery{From: from, To: to, By: by}, func(row BreakdownRow) error {
		out = append(out, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
