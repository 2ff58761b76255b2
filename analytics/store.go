package analytics

import (
	"context"
	"time"
)

// Store persists analytics rows. Both methods are idempotent by EventID: a
// row whose EventID the store already holds is ignored, so a replayed batch
// never double counts. They honour ctx (a slow store must give up when ctx is
// done) and return an error only when the batch was not (fully) stored; the
// caller may then retry the whole batch, unless the error wraps ErrRejected
// (the rows themselves are invalid). Rows are stored cleaned (Attempt.Clean,
// Request.Clean) at millisecond precision. Neither may keep rows (or
// anything pointing into it) after returning: the Writer reuses the slice
// for its next batches.
type Store interface {
	InsertAttempts(ctx context.Context, rows []Attempt) error
	InsertRequests(ctx context.Context, rows []Request) error
}

// FreshInserter is an optional ability of a Store, found by type
// assertion: inserting rows none of whose event ids was ever handed to the
// store before, so the store may skip looking them up among the rows it
// holds (what makes Store's methods idempotent across calls; rows repeated
// within one call still count once). The caller guarantees the rows are
// fresh: the Writer uses it only for a batch's first try, and sends
// retries, spill replays and recovered journals through Store's methods.
// Errors, cleaning and ownership of rows are as in Store, with one more
// rule: after an error part of the rows may be stored (an insert that timed
// out on the client may still land), so the caller must never pass any of
// them to these methods again.
type FreshInserter interface {
	InsertFreshAttempts(ctx context.Context, rows []Attempt) error
	InsertFreshRequests(ctx context.Context, rows []Request) error
}

// Reader answers the console's and reports' questions. Every method is
// scoped to one organisation (ErrOrgRequired for an empty orgID) and never
// returns another organisation's rows. Times in results are UTC with
// millisecond precision; time ranges are half-open [from, to) and a zero
// bound is open.
type Reader interface {
	// ListRequests returns one page of the organisation's requests, newest
	// first (by time, then EventID), matching f. cursor is "" for the first
	// page or a RequestPage.Next from a previous call with the same filter
	// (ErrInvalidCursor otherwise); limit <= 0 means DefaultPageSize and is
	// capped at MaxPageSize.
	ListRequests(ctx context.Context, orgID string, f RequestFilter, cursor string, limit int) (RequestPage, error)
	// Timeline returns one request row and its attempts ordered by operation,
	// then attempt index (see SortAttempts). ErrNotFound when the
	// organisation has neither.
	Timeline(ctx context.Context, orgID, requestID string) (RequestTimeline, error)
	// Summary aggregates the organisation's requests in [from, to).
	Summary(ctx context.Context, orgID string, from, to time.Time) (Summary, error)
	// Breakdown groups the organisation's requests (attempts, for
	// DimFailureReason) in [from, to) by one dimension; see Dimension for the
	// order of the rows.
	Breakdown(ctx context.Context, orgID string, from, to time.Time, by Dimension) ([]BreakdownRow, error)
	// EachBreakdown passes the rows of Breakdown(q.From, q.To, q.By) that
	// q's Offset and Limit select to fn, in Breakdown's order, one at a time
	// as the store reads them: a caller streaming a report holds one row,
	// whatever the number of groups. It stops at fn's first error and
	// returns it. ErrInvalidPage for a negative offset.
	RowStreamer
}

// Page sizes of ListRequests.
const (
	DefaultPageSize = 50
	MaxPageSize     = 1000
)

// RequestFilter narrows ListRequests. Zero fields do not filter.
type RequestFilter struct {
	From, To  time.Time // half-open [From, To)
	KeyID     string
	Model     string // matches the served or the requested model
	RouteKind string // explicit, routed, pinned, cache
	User      string
	Status    int    // exact HTTP status returned to the caller
	ErrorCode string // exact <group>.<code>
	// ErrorsOnly keeps failed requests (see Request.Failed).
	ErrorsOnly bool
	// OKOnly keeps requests that did not fail. With ErrorsOnly as well,
	// nothing matches.
	OKOnly bool
}

// RequestPage is one page of ListRequests. Next is "" on the last page.
type RequestPage struct {
	Requests []Request
	Next     string
	// SearchedFrom, when set, is where a store stopped searching before the
	// range's start because the page's read budget was spent (a filter that
	// matches few rows of a huge organisation): Requests are every match
	// from SearchedFrom on, and Next searches older.
	SearchedFrom time.Time
}

// RequestTimeline is one request and its attempts. Request is nil when only
// attempt rows have arrived so far (they are written as they happen).
type RequestTimeline struct {
	Request  *Request
	Attempts []Attempt
}

// Summary aggregates requests over a period. Rates are in [0, 1] and 0 when
// there are no requests; latencies are milliseconds (see Quantile for the
// definition of the percentiles). TTFB percentiles cover requests with a
// positive TTFB only.
type Summary struct {
	Requests       int64
	Errors         int64
	CacheHits      int64
	InputTokens    int64
	OutputTokens   int64
	CostMicros     int64
	BaselineMicros int64
	SavingsMicros  int64 // sum of the rows' savings, negative ones included
	CacheHitRate   float64
	ErrorRate      float64
	LatencyP50     float64
	LatencyP95     float64
	LatencyP99     float64
	TTFBP50        float64
	TTFBP95        float64
	TTFBP99        float64
}

// BreakdownRow is one group of Breakdown. For DimFailureReason the row
// counts attempts: Attempts is the number of failed (or skipped) attempts
// with that reason, Requests the number of distinct requests they belong to,
// CostMicros their cost; the other fields are zero. For every other dimension
// the row counts requests, Attempts sums Request.Attempts and LatencyMeanMs
// is the mean of the requests' LatencyMs.
type BreakdownRow struct {
	Key            string // see Dimension
	Requests       int64
	Errors         int64
	CacheHits      int64
	Attempts       int64
	InputTokens    int64
	OutputTokens   int64
	CostMicros     int64
	BaselineMicros int64
	SavingsMicros  int64
	LatencyMeanMs  float64
}

// Failed reports whether the request failed: it carries an error code or an
// HTTP status of 400 or above. Stores count Summary.Errors and ErrorsOnly
// with the same rule.
func (r Request) Failed() bool { return r.ErrorCode != "" || r.Status >= 400 }
