package analytics

import (
	"fmt"
	"math"
	"strings"
)

// CleanText makes s storable in every store: invalid UTF-8 becomes U+FFFD
// and NUL bytes are removed (Postgres text refuses both; the spill's JSON
// would replace invalid bytes anyway). Valid text comes back unchanged.
func CleanText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	return s
}

// Clean returns a with CleanText applied to every string field. Stores
// store (and return) the cleaned row.
func (a Attempt) Clean() Attempt {
	for _, p := range []*string{&a.EventID, &a.OrgID, &a.KeyID, &a.RequestID, &a.OperationID, &a.Purpose,
		&a.PolicyID, &a.BundleID, &a.BundleRevision, &a.Model, &a.Provider, &a.Upstream, &a.CredentialID,
		&a.Outcome, &a.Reason} {
		*p = CleanText(*p)
	}
	return a
}

// Clean returns r with CleanText applied to every string field. Stores
// store (and return) the cleaned row.
func (r Request) Clean() Request {
	for _, p := range []*string{&r.EventID, &r.RequestID, &r.OrgID, &r.KeyID, &r.User, &r.Session, &r.Format,
		&r.RequestedModel, &r.ServedModel, &r.Provider, &r.RouteKind, &r.Decision, &r.ErrorCode} {
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

// Check reports, wrapping ErrRejected, a row no store can hold: an int
// field beyond 32 bits (stores keep indexes, statuses and counts as 32-bit
// integers). Stores call it before inserting.
func (a Attempt) Check() error {
	if !fits32(a.AttemptIndex) || !fits32(a.Status) {
		return fmt.Errorf("%w: attempt %s: attempt index or status out of range", ErrRejected, a.EventID)
	}
	return nil
}

// Check reports, wrapping ErrRejected, a row no store can hold (see
// Attempt.Check).
func (r Request) Check() error {
	if !fits32(r.Attempts) || !fits32(r.Status) {
		return fmt.Errorf("%w: request %s: attempts or status out of range", ErrRejected, r.EventID)
	}
	return nil
}

func fits32(v int) bool { return v >= math.MinInt32 && v <= math.MaxInt32 }
