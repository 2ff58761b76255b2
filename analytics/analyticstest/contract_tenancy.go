package analyticstest

import (
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

// testIsolation checks that no Reader method shows one organisation another
// organisation's rows, even where ids, keys and users coincide.
func testIsolation(t *testing.T, s analytics.Store, r analytics.Reader) {
	load(t, s)
	c := ctx(t)
	if got := eventIDs(listAll(t, r, OrgB, analytics.RequestFilter{}, 1)); !sameIDs(got, []string{"rb-02", "rb-01"}) {
		t.Errorf("org B list: %v", got)
	}
	if got := eventIDs(listAll(t, r, OrgB, analytics.RequestFilter{User: "alice", KeyID: "key-1"}, 10)); !sameIDs(got, []string{"rb-02", "rb-01"}) {
		t.Errorf("org B list filtered by a user and key org A also has: %v", got)
	}
	// A cursor taken from org A's listing does not open org A's rows to B.
	pageA, err := r.ListRequests(c, OrgA, analytics.RequestFilter{}, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	pageB, err := r.ListRequests(c, OrgB, analytics.RequestFilter{}, pageA.Next, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range pageB.Requests {
		if q.OrgID != OrgB {
			t.Errorf("org B saw %s of %s", q.EventID, q.OrgID)
		}
	}
	if page, err := r.ListRequests(c, OrgC, analytics.RequestFilter{}, "", 10); err != nil || len(page.Requests) != 0 || page.Next != "" {
		t.Errorf("org C list: %d rows, next %q, err %v", len(page.Requests), page.Next, err)
	}
	for _, by := range analytics.Dimensions {
		rows, err := r.Breakdown(c, OrgC, time.Time{}, time.Time{}, by)
		if err != nil || len(rows) != 0 {
			t.Errorf("org C breakdown by %s: %+v, err %v", by, rows, err)
		}
	}
	keys, err := r.Breakdown(c, OrgB, time.Time{}, time.Time{}, analytics.DimKey)
	if err != nil {
		t.Fatal(err)
	}
	want := []analytics.BreakdownRow{{Key: "key-1", Requests: 2, Errors: 1, Attempts: 2, InputTokens: 7,
		OutputTokens: 7, CostMicros: 99999, BaselineMicros: 99999, LatencyMeanMs: 6000}}
	assertRows(t, keys, want)
}

func testErrors(t *testing.T, s analytics.Store, r analytics.Reader) {
	load(t, s)
	c := ctx(t)
	all := analytics.RequestFilter{}
	_, err := r.ListRequests(c, "", all, "", 10)
	wantErr(t, "ListRequests without org", err, analytics.ErrOrgRequired)
	_, err = r.Timeline(c, "", "req-1")
	wantErr(t, "Timeline without org", err, analytics.ErrOrgRequired)
	_, err = r.Summary(c, "", time.Time{}, time.Time{})
	wantErr(t, "Summary without org", err, analytics.ErrOrgRequired)
	_, err = r.Breakdown(c, "", time.Time{}, time.Time{}, analytics.DimDay)
	wantErr(t, "Breakdown without org", err, analytics.ErrOrgRequired)

	for _, cur := range []string{"!!!", "Zm9v", "OnJhLTAx", "LTE6cmEtMDE"} { // bad base64, "foo", ":ra-01", "-1:ra-01"
		_, err = r.ListRequests(c, OrgA, all, cur, 10)
		wantErr(t, "cursor "+cur, err, analytics.ErrInvalidCursor)
	}
	_, err = r.ListRequests(c, OrgA, analytics.RequestFilter{From: T0, To: T0.Add(-time.Second)}, "", 10)
	wantErr(t, "inverted filter range", err, analytics.ErrInvalidRange)
	_, err = r.Summary(c, OrgA, T0, T0)
	wantErr(t, "empty summary range", err, analytics.ErrInvalidRange)
	_, err = r.Breakdown(c, OrgA, T0.Add(day), T0, analytics.DimDay)
	wantErr(t, "inverted breakdown range", err, analytics.ErrInvalidRange)
	_, err = r.Breakdown(c, OrgA, time.Time{}, time.Time{}, analytics.Dimension("provider"))
	wantErr(t, "unknown dimension", err, analytics.ErrInvalidDimension)
}
