package analyticstest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

// NewStoreFunc returns a fresh, empty store (and its reader) for one test;
// it registers its own cleanup with t.
type NewStoreFunc func(t *testing.T) (analytics.Store, analytics.Reader)

// RunContract runs the assertions every analytics Store and Reader must
// pass: idempotent inserts (and fresh ones, for a FreshInserter), field round trips at millisecond precision,
// filters and cursor paging, timelines, summaries, breakdowns, error
// sentinels and tenant isolation. Each subtest gets a fresh store.
func RunContract(t *testing.T, newStore NewStoreFunc) {
	tests := []struct {
		name string
		run  func(t *testing.T, s analytics.Store, r analytics.Reader)
	}{
		{"RoundTripEveryField", testRoundTrip},
		{"InsertsAreIdempotent", testIdempotent},
		{"FreshInserts", testFreshInserts},
		{"HostileText", testHostileText},
		{"RejectsInvalidRows", testRejectsInvalidRows},
		{"ListNewestFirstWithPaging", testListPaging},
		{"ListFilters", testListFilters},
		{"PagingThroughTies", testPagingTies},
		{"CraftedCursors", testCraftedCursors},
		{"Timeline", testTimeline},
		{"Summary", testSummary},
		{"Percentiles", testPercentiles},
		{"Breakdown", testBreakdown},
		{"FailureReasons", testFailureReasons},
		{"FailureReasonFirstAttempt", testFailureReasonFirstAttempt},
		{"FailureReasonFirstAttemptFresh", testFailureReasonFirstAttemptFresh},
		{"BreakdownByTag", testTagBreakdown},
		{"Health", testHealth},
		{"BreakdownWindows", testBreakdownWindows},
		{"TenantIsolation", testIsolation},
		{"Errors", testErrors},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, r := newStore(t)
			tt.run(t, s, r)
		})
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// load inserts the fixture of every organisation.
func load(t *testing.T, s analytics.Store) {
	t.Helper()
	c := ctx(t)
	for _, rows := range [][]analytics.Attempt{OrgAAttempts(), OrgBAttempts()} {
		if err := s.InsertAttempts(c, rows); err != nil {
			t.Fatalf("InsertAttempts: %v", err)
		}
	}
	for _, rows := range [][]analytics.Request{OrgARequests(), OrgBRequests(), OrgPRequests()} {
		if err := s.InsertRequests(c, rows); err != nil {
			t.Fatalf("InsertRequests: %v", err)
		}
	}
}

// normReq and normAtt are what a store gives back for a row it was given.
func normReq(r analytics.Request) analytics.Request { r.Time = analytics.Millis(r.Time); return r }
func normAtt(a analytics.Attempt) analytics.Attempt { a.Time = analytics.Millis(a.Time); return a }

func eventIDs(rows []analytics.Request) []string {
	ids := make([]string, 0, len(rows))
	for _, r := range rows {
		ids = append(ids, r.EventID)
	}
	return ids
}

func attemptIDs(rows []analytics.Attempt) []string {
	ids := make([]string, 0, len(rows))
	for _, a := range rows {
		ids = append(ids, a.EventID)
	}
	return ids
}

func sameIDs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// listAll pages through ListRequests with limit and returns every row.
func listAll(t *testing.T, r analytics.Reader, org string, f analytics.RequestFilter, limit int) []analytics.Request {
	t.Helper()
	var all []analytics.Request
	cursor := ""
	for range 1000 {
		page, err := r.ListRequests(ctx(t), org, f, cursor, limit)
		if err != nil {
			t.Fatalf("ListRequests(%s, %+v, %q): %v", org, f, cursor, err)
		}
		if len(page.Requests) > max(limit, 0) && limit > 0 {
			t.Fatalf("page of %d rows for limit %d", len(page.Requests), limit)
		}
		all = append(all, page.Requests...)
		if page.Next == "" {
			return all
		}
		cursor = page.Next
	}
	t.Fatal("paging did not end")
	return nil
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: got error %v, want %v", what, err, want)
	}
}
