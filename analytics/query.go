package analytics

import (
	"fmt"
	"math"
	"sort"
	"time"
)

// The helpers below keep the stores' semantics identical; every Store and
// Reader implementation uses them.

// CheckOrg returns ErrOrgRequired for an empty organisation id.
func CheckOrg(orgID string) error {
	if orgID == "" {
		return ErrOrgRequired
	}
	return nil
}

// RangeMillis converts a half-open time range to Unix milliseconds. A zero
// from gives 0; a zero to gives math.MaxInt64. ErrInvalidRange when to is not
// after from.
func RangeMillis(from, to time.Time) (fromMs, toMs int64, err error) {
	fromMs, toMs = 0, int64(math.MaxInt64)
	if !from.IsZero() {
		fromMs = max(from.UnixMilli(), 0)
	}
	if !to.IsZero() {
		toMs = to.UnixMilli()
	}
	if toMs <= fromMs {
		return 0, 0, fmt.Errorf("%w: %s .. %s", ErrInvalidRange, from.Format(time.RFC3339), to.Format(time.RFC3339))
	}
	return fromMs, toMs, nil
}

// PageSize normalises a requested page size.
func PageSize(limit int) int {
	switch {
	case limit <= 0:
		return DefaultPageSize
	case limit > MaxPageSize:
		return MaxPageSize
	}
	return limit
}

// Quantiles are the levels Summary reports.
var Quantiles = [3]float64{0.5, 0.95, 0.99}

// QuantileIndex is the 0-based index, in ascending order, of the value a
// store reports as the q-quantile of n values: floor(q*n) capped at n-1
// (ClickHouse's quantileExact). It is -1 when n is 0.
func QuantileIndex(q float64, n int64) int64 {
	if n <= 0 {
		return -1
	}
	i := int64(q * float64(n))
	return min(max(i, 0), n-1)
}

// Quantile returns the q-quantile of sorted (ascending) values as
// QuantileIndex defines it; 0 for no values.
func Quantile(sorted []float64, q float64) float64 {
	i := QuantileIndex(q, int64(len(sorted)))
	if i < 0 {
		return 0
	}
	return sorted[i]
}

// Rates fills CacheHitRate and ErrorRate from the counts.
func (s *Summary) Rates() {
	s.CacheHitRate, s.ErrorRate = 0, 0
	if s.Requests > 0 {
		s.CacheHitRate = float64(s.CacheHits) / float64(s.Requests)
		s.ErrorRate = float64(s.Errors) / float64(s.Requests)
	}
}

// SortAttempts orders a request's attempts for its timeline: operations in
// the order they started (earliest attempt time, then operation id), and
// within an operation by attempt index, then time, then EventID.
func SortAttempts(rows []Attempt) {
	start := make(map[string]int64, 2)
	for _, a := range rows {
		t := a.Time.UnixMilli()
		if s, ok := start[a.OperationID]; !ok || t < s {
			start[a.OperationID] = t
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.OperationID != b.OperationID {
			if sa, sb := start[a.OperationID], start[b.OperationID]; sa != sb {
				return sa < sb
			}
			return a.OperationID < b.OperationID
		}
		if a.AttemptIndex != b.AttemptIndex {
			return a.AttemptIndex < b.AttemptIndex
		}
		if !a.Time.Equal(b.Time) {
			return a.Time.Before(b.Time)
		}
		return a.EventID < b.EventID
	})
}

// SortBreakdown orders rows as Dimension documents. Stores that cannot sort
// in SQL the same way (day keys are formatted after the query) call it last.
func SortBreakdown(rows []BreakdownRow, by Dimension) {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		switch by {
		case DimDay:
		case DimFailureReason:
			if a.Attempts != b.Attempts {
				return a.Attempts > b.Attempts
			}
		default:
			if a.Requests != b.Requests {
				return a.Requests > b.Requests
			}
		}
		return a.Key < b.Key
	})
}

// Millis truncates t to the precision stores keep and returns it in UTC.
func Millis(t time.Time) time.Time { return time.UnixMilli(t.UnixMilli()).UTC() }

// ListQuery is a validated ListRequests call: the cleaned organisation and
// filter, the time range in Unix milliseconds ([FromMs, ToMs)), the cursor
// (when HasCursor) and the page size.
type ListQuery struct {
	OrgID     string
	Filter    RequestFilter
	FromMs    int64
	ToMs      int64
	Cursor    Cursor
	HasCursor bool
	Limit     int
}

// PrepareList checks and normalises the arguments of ListRequests, the
// same way for every store: ErrOrgRequired, ErrInvalidRange or
// ErrInvalidCursor on bad input.
func PrepareList(orgID string, f RequestFilter, cursor string, limit int) (ListQuery, error) {
	if err := CheckOrg(orgID); err != nil {
		return ListQuery{}, err
	}
	q := ListQuery{OrgID: CleanText(orgID), Filter: f.Clean(), Limit: PageSize(limit)}
	var err error
	if q.FromMs, q.ToMs, err = RangeMillis(q.Filter.From, q.Filter.To); err != nil {
		return ListQuery{}, err
	}
	if q.Cursor, q.HasCursor, err = ParseCursor(cursor); err != nil {
		return ListQuery{}, err
	}
	return q, nil
}
