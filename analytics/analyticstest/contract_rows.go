package analyticstest

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

// fullRequest and fullAttempt set every field to a non-zero value, with a
// sub-millisecond time in a non-UTC zone, a fractional latency, negative
// savings and values beyond 32 bits.
func fullRequest() analytics.Request {
	return analytics.Request{
		EventID: "rf-1", Time: time.Date(2026, 11, 28, 23, 30, 1, 987_654_321, time.FixedZone("IST", 19800)),
		RequestID: "req-full", OrgID: "org-f", KeyID: "key-f", User: "user-f", Session: "sess-f",
		Format: "anthropic", RequestedModel: "claude-opus", ServedModel: "claude-haiku", Provider: "anthropic",
		RouteKind: "pinned", Decision: "stay: pinned model cheaper with cache", CacheHit: true, Stream: true,
		Fallback: true, Attempts: 3, InputTokens: 1 << 33, OutputTokens: 2, CacheRead: 3, CacheWrite: 4,
		Reasoning: 5, CostMicros: 1 << 40, BaselineMicros: 7, SavingsMicros: -8, LatencyMs: 12.345,
		TTFBMs: 6.5, Status: 503, ErrorCode: "dispatch.upstream_unavailable",
		Tags: "ci,team:search", BaselineModel: "claude-opus", Candidates: "claude-haiku=0.910 claude-opus=0.880",
	}
}

func fullAttempt() analytics.Attempt {
	return analytics.Attempt{
		EventID: "af-1", Time: time.Date(2026, 11, 28, 23, 30, 1, 500_999_999, time.FixedZone("IST", 19800)),
		OrgID: "org-f", KeyID: "key-f", RequestID: "req-full", OperationID: "op-f", Purpose: "handover",
		PolicyID: "pol-f", BundleID: "bundle-f", BundleRevision: "rev-9", AttemptIndex: 2, Model: "claude-haiku",
		Provider: "anthropic", Upstream: "claude-haiku-4-5", CredentialID: "cred-f", Outcome: "failed",
		Reason: "first_byte_timeout", Status: 504, LatencyMs: 30000.25, TTFBMs: 0.5, InputTokens: 1 << 34,
		OutputTokens: 11, CacheRead: 12, CacheWrite: 13, Reasoning: 14, CostMicros: 1 << 41, Stream: true,
	}
}

func testRoundTrip(t *testing.T, s analytics.Store, r analytics.Reader) {
	c := ctx(t)
	fr, fa := fullRequest(), fullAttempt()
	if err := s.InsertAttempts(c, []analytics.Attempt{fa}); err != nil {
		t.Fatal(err)
	}
	if err := s.InsertRequests(c, []analytics.Request{fr}); err != nil {
		t.Fatal(err)
	}
	page, err := r.ListRequests(c, "org-f", analytics.RequestFilter{}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Requests) != 1 || page.Next != "" {
		t.Fatalf("list: %d rows, next %q", len(page.Requests), page.Next)
	}
	if got, want := page.Requests[0], normReq(fr); got != want {
		t.Errorf("request round trip:\n got %+v\nwant %+v", got, want)
	}
	if loc := page.Requests[0].Time.Location(); loc != time.UTC {
		t.Errorf("request time location %v, want UTC", loc)
	}
	tl, err := r.Timeline(c, "org-f", "req-full")
	if err != nil {
		t.Fatal(err)
	}
	if tl.Request == nil || *tl.Request != normReq(fr) {
		t.Errorf("timeline request: got %+v", tl.Request)
	}
	if len(tl.Attempts) != 1 {
		t.Fatalf("timeline attempts: %d", len(tl.Attempts))
	}
	if got, want := tl.Attempts[0], normAtt(fa); got != want {
		t.Errorf("attempt round trip:\n got %+v\nwant %+v", got, want)
	}
	if loc := tl.Attempts[0].Time.Location(); loc != time.UTC {
		t.Errorf("attempt time location %v, want UTC", loc)
	}
}

func testIdempotent(t *testing.T, s analytics.Store, r analytics.Reader) {
	load(t, s)
	c := ctx(t)
	reqs, atts := OrgARequests(), OrgAAttempts()
	// The whole batch again, an overlapping batch, and a batch carrying the
	// same row twice.
	if err := s.InsertRequests(c, reqs); err != nil {
		t.Fatal(err)
	}
	if err := s.InsertRequests(c, append(reqs[2:4:4], reqs[3], reqs[0])); err != nil {
		t.Fatal(err)
	}
	if err := s.InsertAttempts(c, append(atts, atts[0], atts[5])); err != nil {
		t.Fatal(err)
	}
	got := listAll(t, r, OrgA, analytics.RequestFilter{}, 100)
	if want := []string{"ra-07", "ra-06", "ra-05", "ra-04", "ra-03", "ra-02", "ra-01"}; !sameIDs(eventIDs(got), want) {
		t.Errorf("list after replays: %v, want %v", eventIDs(got), want)
	}
	sum, err := r.Summary(c, OrgA, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Requests != 7 || sum.CostMicros != 10500 || sum.Errors != 2 {
		t.Errorf("summary after replays: %+v", sum)
	}
	tl, err := r.Timeline(c, OrgA, "req-2")
	if err != nil {
		t.Fatal(err)
	}
	if ids := attemptIDs(tl.Attempts); !sameIDs(ids, []string{"aa-02", "aa-03", "aa-04"}) {
		t.Errorf("timeline after replays: %v", ids)
	}
	fr, err := r.Breakdown(c, OrgA, time.Time{}, time.Time{}, analytics.DimFailureReason)
	if err != nil {
		t.Fatal(err)
	}
	if len(fr) != 3 || fr[0].Attempts != 2 || fr[0].CostMicros != 12 {
		t.Errorf("failure reasons after replays: %+v", fr)
	}
}

// testFreshInserts: a FreshInserter stores fresh batches as Insert* does (a
// row repeated within one call counts once, a failed request counts once
// per reason when its attempts arrive in two batches), and the rows it
// stored are ignored when replayed through Insert*.
func testFreshInserts(t *testing.T, s analytics.Store, r analytics.Reader) {
	f, ok := s.(analytics.FreshInserter)
	if !ok {
		t.Skip("the store has no FreshInserter")
	}
	c := ctx(t)
	reqs, atts := OrgARequests(), OrgAAttempts()
	for _, err := range []error{
		f.InsertFreshAttempts(c, append(atts[:5:5], atts[2])), // req-4's attempts in both batches
		f.InsertFreshAttempts(c, atts[5:]),
		f.InsertFreshRequests(c, append(reqs[:4:4], reqs[1])),
		f.InsertFreshRequests(c, reqs[4:]),
		s.InsertAttempts(c, atts),
		s.InsertRequests(c, reqs),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	got := listAll(t, r, OrgA, analytics.RequestFilter{}, 100)
	if want := []string{"ra-07", "ra-06", "ra-05", "ra-04", "ra-03", "ra-02", "ra-01"}; !sameIDs(eventIDs(got), want) {
		t.Errorf("list: %v, want %v", eventIDs(got), want)
	}
	sum, err := r.Summary(c, OrgA, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Requests != 7 || sum.CostMicros != 10500 || sum.Errors != 2 {
		t.Errorf("summary: %+v", sum)
	}
	tl, err := r.Timeline(c, OrgA, "req-2")
	if err != nil {
		t.Fatal(err)
	}
	if ids := attemptIDs(tl.Attempts); !sameIDs(ids, []string{"aa-02", "aa-03", "aa-04"}) {
		t.Errorf("timeline: %v", ids)
	}
	fr, err := r.Breakdown(c, OrgA, time.Time{}, time.Time{}, analytics.DimFailureReason)
	if err != nil {
		t.Fatal(err)
	}
	if len(fr) != 3 {
		t.Fatalf("failure reasons: %+v, want 3 rows", fr)
	}
	if want := (analytics.BreakdownRow{Key: "upstream_5xx", Requests: 2, Attempts: 2, CostMicros: 12}); fr[0] != want {
		t.Errorf("failure reasons: first %+v, want %+v", fr[0], want)
	}
	for _, row := range fr[1:] {
		if row.Requests != 1 || row.Attempts != 1 {
			t.Errorf("failure reason %+v, want one attempt of one request", row)
		}
	}
}

// testHostileText stores text Postgres would refuse (NUL, invalid UTF-8):
// every store keeps the cleaned row, and lookups with the raw text find it.
func testHostileText(t *testing.T, s analytics.Store, r analytics.Reader) {
	c := ctx(t)
	q := fullRequest()
	q.OrgID, q.EventID, q.RequestID = "org-h", "rh-1", "req-\xff"
	q.User, q.Session, q.Decision = "a\x00b\xffc", "\x00", "ok \u2713 \xc3\x28"
	q.LatencyMs, q.TTFBMs = math.NaN(), math.Inf(1)
	a := fullAttempt()
	a.OrgID, a.EventID, a.RequestID, a.BundleRevision = "org-h", "ah-1", "req-\xff", "r\x00\xfe"
	a.LatencyMs = math.Inf(-1)
	if err := s.InsertRequests(c, []analytics.Request{q}); err != nil {
		t.Fatalf("InsertRequests: %v", err)
	}
	if err := s.InsertAttempts(c, []analytics.Attempt{a}); err != nil {
		t.Fatalf("InsertAttempts: %v", err)
	}
	want := normReq(q.Clean())
	if want.User != "ab\uFFFDc" || want.Session != "" || want.RequestID != "req-\uFFFD" || want.LatencyMs != 0 {
		t.Fatalf("CleanText: user %q, session %q, request id %q", want.User, want.Session, want.RequestID)
	}
	got := listAll(t, r, "org-h", analytics.RequestFilter{User: q.User}, 10)
	if len(got) != 1 || got[0] != want {
		t.Fatalf("list by the raw user: %+v, want %+v", got, want)
	}
	tl, err := r.Timeline(c, "org-h", q.RequestID)
	if err != nil {
		t.Fatalf("Timeline by the raw request id: %v", err)
	}
	if tl.Request == nil || *tl.Request != want || len(tl.Attempts) != 1 || tl.Attempts[0] != normAtt(a.Clean()) {
		t.Errorf("timeline: %+v", tl)
	}
}

// testRejectsInvalidRows: a batch holding a row no store can hold fails with
// ErrRejected and stores none of its rows; the valid rows alone go in.
func testRejectsInvalidRows(t *testing.T, s analytics.Store, r analytics.Reader) {
	c := ctx(t)
	atts := OrgAAttempts()
	bad := atts[0]
	bad.EventID, bad.AttemptIndex = "bad-a", 1<<40
	err := s.InsertAttempts(c, append(slices.Clone(atts[1:4]), bad))
	wantErr(t, "attempt index beyond 32 bits", err, analytics.ErrRejected)
	reqs := OrgARequests()
	badReq := reqs[0]
	badReq.EventID, badReq.Status = "bad-r", -1<<40
	err = s.InsertRequests(c, append(slices.Clone(reqs[1:3]), badReq))
	wantErr(t, "status beyond 32 bits", err, analytics.ErrRejected)
	for _, at := range []time.Time{{}, time.Unix(-1, 0), time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)} {
		early := reqs[1]
		early.EventID, early.Time = "bad-t", at
		err = s.InsertRequests(c, []analytics.Request{reqs[2], early})
		wantErr(t, "request time "+at.String(), err, analytics.ErrRejected)
		lost := atts[1]
		lost.EventID, lost.Time = "bad-t", at
		err = s.InsertAttempts(c, []analytics.Attempt{lost})
		wantErr(t, "attempt time "+at.String(), err, analytics.ErrRejected)
	}

	if _, err := r.Timeline(c, OrgA, "req-4"); !errors.Is(err, analytics.ErrNotFound) {
		t.Errorf("rows of a rejected batch were stored: %v", err)
	}
	if page, err := r.ListRequests(c, OrgA, analytics.RequestFilter{}, "", 10); err != nil || len(page.Requests) != 0 {
		t.Errorf("requests of a rejected batch were stored: %d, %v", len(page.Requests), err)
	}
	if err := s.InsertRequests(c, reqs[1:3]); err != nil {
		t.Fatalf("valid rows alone: %v", err)
	}
}
