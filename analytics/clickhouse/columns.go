package clickhouse

import (
	"fmt"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"github.com/heddle-gw/heddle/analytics"
)

// A batch is appended column by column: one typed slice per column (the
// driver copies it into its column buffer) instead of one []any of boxed
// values per row, which cost about 20 allocations a row.

// column is one column of an insert into a table of rows of type T.
type column[T any] struct {
	name string
	// values returns the column's values of rows[keep], in keep's order, as
	// the typed slice the driver's column accepts.
	values func(rows []T, keep []int) any
}

// col returns the column name whose value of a row is f of it.
func col[T, V any](name string, f func(*T) V) column[T] {
	return column[T]{name: name, values: func(rows []T, keep []int) any {
		out := make([]V, len(keep))
		for j, i := range keep {
			out[j] = f(&rows[i])
		}
		return out
	}}
}

// columnList is cols' names as an INSERT's column list.
func columnList[T any](cols []column[T]) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

// appendColumns appends rows[keep] to b, whose first columns are cols.
func appendColumns[T any](b driver.Batch, cols []column[T], rows []T, keep []int) error {
	for i, c := range cols {
		if err := b.Column(i).Append(c.values(rows, keep)); err != nil {
			return fmt.Errorf("column %s: %w", c.name, err)
		}
	}
	return nil
}

// atTime and atMs are a row's time column (DateTime, seconds) and time_ms.
func atTime(t time.Time) time.Time { return analytics.Millis(t) }
func atMs(t time.Time) int64       { return analytics.Millis(t).UnixMilli() }

// attemptCols are the attempts table's columns but counts_request, which
// insertAttempts appends last (it depends on the stored rows; see marks).
var attemptCols = []column[analytics.Attempt]{
	col("event_id", func(a *analytics.Attempt) string { return a.EventID }),
	col("time", func(a *analytics.Attempt) time.Time { return atTime(a.Time) }),
	col("time_ms", func(a *analytics.Attempt) int64 { return atMs(a.Time) }),
	col("org_id", func(a *analytics.Attempt) string { return a.OrgID }),
	col("key_id", func(a *analytics.Attempt) string { return a.KeyID }),
	col("request_id", func(a *analytics.Attempt) string { return a.RequestID }),
	col("operation_id", func(a *analytics.Attempt) string { return a.OperationID }),
	col("purpose", func(a *analytics.Attempt) string { return a.Purpose }),
	col("policy_id", func(a *analytics.Attempt) string { return a.PolicyID }),
	col("bundle_id", func(a *analytics.Attempt) string { return a.BundleID }),
	col("bundle_revision", func(a *analytics.Attempt) string { return a.BundleRevision }),
	col("attempt_index", func(a *analytics.Attempt) int32 { return int32(a.AttemptIndex) }),
	col("model", func(a *analytics.Attempt) string { return a.Model }),
	col("provider", func(a *analytics.Attempt) string { return a.Provider }),
	col("upstream", func(a *analytics.Attempt) string { return a.Upstream }),
	col("credential_id", func(a *analytics.Attempt) string { return a.CredentialID }),
	col("outcome", func(a *analytics.Attempt) string { return a.Outcome }),
	col("reason", func(a *analytics.Attempt) string { return a.Reason }),
	col("status", func(a *analytics.Attempt) int32 { return int32(a.Status) }),
	col("latency_ms", func(a *analytics.Attempt) float64 { return a.LatencyMs }),
	col("ttfb_ms", func(a *analytics.Attempt) float64 { return a.TTFBMs }),
	col("input_tokens", func(a *analytics.Attempt) int64 { return a.InputTokens }),
	col("output_tokens", func(a *analytics.Attempt) int64 { return a.OutputTokens }),
	col("cache_read", func(a *analytics.Attempt) int64 { return a.CacheRead }),
	col("cache_write", func(a *analytics.Attempt) int64 { return a.CacheWrite }),
	col("reasoning", func(a *analytics.Attempt) int64 { return a.Reasoning }),
	col("cost_micros", func(a *analytics.Attempt) int64 { return a.CostMicros }),
	col("stream", func(a *analytics.Attempt) uint8 { return u8(a.Stream) }),
}

// requestCols are the requests table's columns.
var requestCols = []column[analytics.Request]{
	col("event_id", func(r *analytics.Request) string { return r.EventID }),
	col("time", func(r *analytics.Request) time.Time { return atTime(r.Time) }),
	col("time_ms", func(r *analytics.Request) int64 { return atMs(r.Time) }),
	col("request_id", func(r *analytics.Request) string { return r.RequestID }),
	col("org_id", func(r *analytics.Request) string { return r.OrgID }),
	col("key_id", func(r *analytics.Request) string { return r.KeyID }),
	col("end_user", func(r *analytics.Request) string { return r.User }),
	col("session", func(r *analytics.Request) string { return r.Session }),
	col("format", func(r *analytics.Request) string { return r.Format }),
	col("requested_model", func(r *analytics.Request) string { return r.RequestedModel }),
	col("served_model", func(r *analytics.Request) string { return r.ServedModel }),
	col("provider", func(r *analytics.Request) string { return r.Provider }),
	col("route_kind", func(r *analytics.Request) string { return r.RouteKind }),
	col("decision", func(r *analytics.Request) string { return r.Decision }),
	col("cache_hit", func(r *analytics.Request) uint8 { return u8(r.CacheHit) }),
	col("stream", func(r *analytics.Request) uint8 { return u8(r.Stream) }),
	col("fallback", func(r *analytics.Request) uint8 { return u8(r.Fallback) }),
	col("attempts", func(r *analytics.Request) int32 { return int32(r.Attempts) }),
	col("input_tokens", func(r *analytics.Request) int64 { return r.InputTokens }),
	col("output_tokens", func(r *analytics.Request) int64 { return r.OutputTokens }),
	col("cache_read", func(r *analytics.Request) int64 { return r.CacheRead }),
	col("cache_write", func(r *analytics.Request) int64 { return r.CacheWrite }),
	col("reasoning", func(r *analytics.Request) int64 { return r.Reasoning }),
	col("cost_micros", func(r *analytics.Request) int64 { return r.CostMicros }),
	col("baseline_micros", func(r *analytics.Request) int64 { return r.BaselineMicros }),
	col("savings_micros", func(r *analytics.Request) int64 { return r.SavingsMicros }),
	col("latency_ms", func(r *analytics.Request) float64 { return r.LatencyMs }),
	col("ttfb_ms", func(r *analytics.Request) float64 { return r.TTFBMs }),
	col("status", func(r *analytics.Request) int32 { return int32(r.Status) }),
	col("error_code", func(r *analytics.Request) string { return r.ErrorCode }),
	col("tags", func(r *analytics.Request) string { return r.Tags }),
	col("baseline_model", func(r *analytics.Request) string { return r.BaselineModel }),
	col("candidates", func(r *analytics.Request) string { return r.Candidates }),
}
