package analyticstest

import (
	"testing"

	"github.com/heddle-gw/heddle/analytics"
)

func testTimeline(t *testing.T, s analytics.Store, r analytics.Reader) {
	load(t, s)
	byID := map[string]analytics.Attempt{}
	for _, a := range append(OrgAAttempts(), OrgBAttempts()...) {
		byID[a.EventID] = normAtt(a)
	}
	reqs := map[string]analytics.Request{}
	for _, q := range append(OrgARequests(), OrgBRequests()...) {
		reqs[q.EventID] = normReq(q)
	}
	tests := []struct {
		name, org, request string
		wantReq            string // request row's event id, "" for none
		wantAttempts       []string
	}{
		{"operations by start time, then index", OrgA, "req-2", "ra-02", []string{"aa-02", "aa-03", "aa-04"}},
		{"attempt index order", OrgA, "req-4", "ra-04", []string{"aa-05", "aa-06", "aa-07"}},
		{"shared request id, org A", OrgA, "req-1", "ra-01", []string{"aa-01"}},
		{"shared request id, org B", OrgB, "req-1", "rb-01", []string{"ab-01"}},
		{"request without attempts", OrgA, "req-3", "ra-03", nil},
		{"attempts without request row", OrgA, "req-8", "", []string{"aa-09"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl, err := r.Timeline(ctx(t), tt.org, tt.request)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case tt.wantReq == "" && tl.Request != nil:
				t.Errorf("request: got %+v, want none", tl.Request)
			case tt.wantReq != "" && tl.Request == nil:
				t.Errorf("request: got none, want %s", tt.wantReq)
			case tt.wantReq != "" && *tl.Request != reqs[tt.wantReq]:
				t.Errorf("request:\n got %+v\nwant %+v", *tl.Request, reqs[tt.wantReq])
			}
			if got := attemptIDs(tl.Attempts); !sameIDs(got, tt.wantAttempts) {
				t.Fatalf("attempts: got %v, want %v", got, tt.wantAttempts)
			}
			for _, a := range tl.Attempts {
				if a != byID[a.EventID] {
					t.Errorf("attempt %s:\n got %+v\nwant %+v", a.EventID, a, byID[a.EventID])
				}
			}
		})
	}
	for _, miss := range []struct{ org, request string }{{OrgA, "req-9"}, {OrgB, "req-2"}, {OrgC, "req-1"}, {OrgA, ""}} {
		_, err := r.Timeline(ctx(t), miss.org, miss.request)
		wantErr(t, "Timeline("+miss.org+", "+miss.request+")", err, analytics.ErrNotFound)
	}
}
