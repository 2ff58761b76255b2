package analytics

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"
)

// CleanText makes s storable in every store: invalid UTF-8 becomes U+FFFD
// and NUL bytes are removed (Postgres text refuses both; the spill's JSON
// would replace invalid bytes anyway). Valid text comes back unchanged.
func CleanText(s string) string {
	// Every row carries ~30 strings, nearly always valid: utf8.ValidString
	// checks 8 ASCII bytes a step where ToValidUTF8 decodes rune by rune.
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	return s
}

// finite maps NaN and infinities, which JSON cannot carry, to 0.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

// Clean returns a with CleanText applied to every string field and NaN or
// infinite latencies set to 0. Stores store (and return) the cleaned row.
func (a Attempt) Clean() Attempt {
	a.LatencyMs, a.TTFBMs = finite(a.LatencyMs), finite(a.TTFBMs)
	for _, p := range []*string{&a.EventID, &a.OrgID, &a.KeyID, &a.RequestID, &a.OperationID, &a.Purpose,
		&a.PolicyID, &a.BundleID, &a.BundleRevision, &a.Model, &a.Provider, &a.Upstream, &a.CredentialID,
		&a.Outcome, &a.Reason} {
		*p = CleanText(*p)
	}
	return a
}

// Clean returns r with CleanText applied to every string field and NaN or
// infinite latencies set to 0. Stores store (and return) the cleaned row.
func (r Request) Clean() Request {
	r.LatencyMs, r.TTFBMs = finite(r.LatencyMs), finite(r.TTFBMs)
	for _, p := range []*string{&r.EventID, &r.RequestID, &r.OrgID, &r.KeyID, &r.User, &r.Session, &r.Format,
		&r.RequestedModel, &r.ServedModel, &r.Provider, &r.RouteKind, &r.Decision, &r.ErrorCode, &r.Tags,
		&r.BaselineModel, &r.Candidates} {
		*p = CleanText(*p)
	}
	return r
}

// Clean returns f with CleanText applied to its string fields, so a filter
// matches the cleaned rows the stores hold.
func (f RequestFilter) Clean() RequestFilter {
	for _, p := range []*string{&f.KeyID, &f.Model, &f.RouteKind, &f.User, &f.ErrorCode} {
		*p = CleanText(*p)
	}
	return f
}

// Check reports, wrapping ErrRejected, a row no store can hold: a time
// outside MinTime..MaxTime (a zero time, say) or an int field beyond 32 bits
// (stores keep indexes, statuses and counts as 32-bit integers). Stores call
// it before inserting.
func (a Attempt) Check() error {
	if !inTime(a.Time) {
		return fmt.Errorf("%w: attempt %s: time %s out of range", ErrRejected, a.EventID, a.Time.Format(time.RFC3339))
	}
	if !fits32(a.AttemptIndex) || !fits32(a.Status) {
		return fmt.Errorf("%w: attempt %s: attempt index or status out of range", ErrRejected, a.EventID)
	}
	return nil
}

// Check reports, wrapping ErrRejected, a row no store can hold (see
// Attempt.Check).
func (r Request) Check() error {
	if !inTime(r.Time) {
		return fmt.Errorf("%w: request %s: time %s out of range", ErrRejected, r.EventID, r.Time.Format(time.RFC3339))
	}
	if !fits32(r.Attempts) || !fits32(r.Status) {
		return fmt.Errorf("%w: request %s: attempts or status out of range", ErrRejected, r.EventID)
	}
	return nil
}

// MinTime and MaxTime bound the row times every store can hold (ClickHouse's
// DateTime).
var (
	MinTime = time.Unix(0, 0).UTC()
	MaxTime = time.Date(2105, 12, 31, 23, 59, 59, 0, time.UTC)
)

func inTime(t time.Time) bool { return !t.Before(MinTime) && !t.After(MaxTime) }

func fits32(v int) bool { return v >= math.MinInt32 && v <= math.MaxInt32 }
