package analyticstest

import (
	"fmt"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

func testListPaging(t *testing.T, s analytics.Store, r analytics.Reader) {
	load(t, s)
	c := ctx(t)
	want := [][]string{{"ra-07", "ra-06", "ra-05"}, {"ra-04", "ra-03", "ra-02"}, {"ra-01"}}
	cursor := ""
	for i, ids := range want {
		page, err := r.ListRequests(c, OrgA, analytics.RequestFilter{}, cursor, 3)
		if err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		if got := eventIDs(page.Requests); !sameIDs(got, ids) {
			t.Fatalf("page %d: got %v, want %v", i, got, ids)
		}
		if last := i == len(want)-1; last != (page.Next == "") {
			t.Fatalf("page %d: next %q", i, page.Next)
		}
		cursor = page.Next
	}
	// Rows come back whole: the first page's first row is ra-07 as inserted.
	page, err := r.ListRequests(c, OrgA, analytics.RequestFilter{}, "", 7)
	if err != nil {
		t.Fatal(err)
	}
	if page.Next != "" || len(page.Requests) != 7 {
		t.Fatalf("limit equal to the row count: %d rows, next %q", len(page.Requests), page.Next)
	}
	if got, want := page.Requests[0], normReq(OrgARequests()[6]); got != want {
		t.Errorf("row: got %+v, want %+v", got, want)
	}
	// limit <= 0 means the default page size.
	page, err = r.ListRequests(c, OrgP, analytics.RequestFilter{}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Requests) != analytics.DefaultPageSize || page.Next == "" {
		t.Errorf("default page: %d rows, next %q", len(page.Requests), page.Next)
	}
}

func testListFilters(t *testing.T, s analytics.Store, r analytics.Reader) {
	load(t, s)
	tests := []struct {
		name string
		f    analytics.RequestFilter
		want []string
	}{
		{"none", analytics.RequestFilter{}, []string{"ra-07", "ra-06", "ra-05", "ra-04", "ra-03", "ra-02", "ra-01"}},
		{"key", analytics.RequestFilter{KeyID: "key-2"}, []string{"ra-07", "ra-04", "ra-03"}},
		{"model requested or served", analytics.RequestFilter{Model: "gpt-5"}, []string{"ra-05", "ra-04", "ra-01"}},
		{"model served", analytics.RequestFilter{Model: "gpt-5-mini"}, []string{"ra-07", "ra-03", "ra-01"}},
		{"model requested only", analytics.RequestFilter{Model: "claude-sonnet"}, []string{"ra-06", "ra-02"}},
		{"route kind", analytics.RequestFilter{RouteKind: "routed"}, []string{"ra-07", "ra-06", "ra-03", "ra-01"}},
		{"user", analytics.RequestFilter{User: "alice"}, []string{"ra-06", "ra-02", "ra-01"}},
		{"status", analytics.RequestFilter{Status: 502}, []string{"ra-04"}},
		{"error code", analytics.RequestFilter{ErrorCode: "tenancy.rate_limited"}, []string{"ra-06"}},
		{"errors only", analytics.RequestFilter{ErrorsOnly: true}, []string{"ra-06", "ra-04"}},
		{"ok only", analytics.RequestFilter{OKOnly: true}, []string{"ra-07", "ra-05", "ra-03", "ra-02", "ra-01"}},
		{"ok only with a model", analytics.RequestFilter{OKOnly: true, Model: "gpt-5"}, []string{"ra-05", "ra-01"}},
		{"ok and errors only", analytics.RequestFilter{OKOnly: true, ErrorsOnly: true}, nil},
		{"time range is half-open", analytics.RequestFilter{From: T0.Add(day), To: T0.Add(2 * day)}, []string{"ra-05", "ra-04"}},
		{"from only", analytics.RequestFilter{From: T0.Add(2 * day)}, []string{"ra-07", "ra-06"}},
		{"to only", analytics.RequestFilter{To: T0.Add(time.Hour)}, []string{"ra-01"}},
		{"combined", analytics.RequestFilter{KeyID: "key-1", RouteKind: "routed"}, []string{"ra-06", "ra-01"}},
		{"no match", analytics.RequestFilter{User: "mallory"}, nil},
		{"quotes are data", analytics.RequestFilter{User: `alice' OR '1'='1`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, limit := range []int{2, 100} {
				got := eventIDs(listAll(t, r, OrgA, tt.f, limit))
				if !sameIDs(got, tt.want) {
					t.Errorf("limit %d: got %v, want %v", limit, got, tt.want)
				}
			}
		})
	}
}

// testPagingTies pages through 100 rows, ten per millisecond, with page sizes
// that cut through the ties: every row exactly once, newest first, then by
// event id descending.
func testPagingTies(t *testing.T, s analytics.Store, r analytics.Reader) {
	load(t, s)
	want := make([]string, 0, 100)
	for i := 99; i >= 0; i-- {
		want = append(want, fmt.Sprintf("p-%03d", i))
	}
	for _, limit := range []int{1, 7, 10, 33, 1000} {
		got := eventIDs(listAll(t, r, OrgP, analytics.RequestFilter{}, limit))
		if !sameIDs(got, want) {
			t.Errorf("limit %d: got %d rows %v..., want 100 in order", limit, len(got), got[:min(len(got), 12)])
		}
	}
}
