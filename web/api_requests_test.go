package web_test

import (
	"context"
	"slices"
	"testing"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/analyticstest"
)

// reportOrgs signs up alice (org A) and bob (org B) and loads loadReports'
// requests for both.
func reportOrgs(t *testing.T) (f *fixture, store *analyticstest.Store, a, b *client, orgA, orgB string) {
	t.Helper()
	store = analyticstest.NewStore()
	f = newFixture(t, withReports(store))
	a = f.browser()
	orgA = str(a.signup("alice@a.example", "Org A"), "org", "id")
	b = f.browser()
	orgB = str(b.signup("bob@b.example", "Org B"), "org", "id")
	loadReports(t, store, orgA, orgB)
	return f, store, a, b, orgA, orgB
}

func requestIDsOf(t *testing.T, body map[string]any) []string {
	t.Helper()
	rs, _ := body["requests"].([]any)
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.(map[string]any)["id"].(string)
	}
	return ids
}

// TestAPIRequestsListFiltersAndPages: the list is the organisation's own
// requests, newest first, in cursor pages, narrowed by the explorer's
// filters; bad parameters are 400 naming the parameter.
func TestAPIRequestsListFiltersAndPages(t *testing.T) {
	f, _, a, _, _, _ := reportOrgs(t)

	var all []string
	path := "/api/v1/requests?limit=3"
	for pages := 0; ; pages++ {
		body := a.mustStatus(a.do("GET", path, nil), 200).json(t)
		all = append(all, requestIDsOf(t, body)...)
		next := str(body, "next_cursor")
		if next == "" {
			if pages != 1 {
				t.Errorf("pages of 3 for 4 requests: %d", pages+1)
			}
			break
		}
		path = "/api/v1/requests?limit=3&cursor=" + next
	}
	if slices.Contains(all, "b1") || len(all) != 4 || all[0] != "a4" || all[3] != "a1" {
		t.Fatalf("org A's requests, newest first: %v", all)
	}
	first := a.mustStatus(a.do("GET", "/api/v1/requests?limit=1", nil), 200).json(t)["requests"].([]any)[0].(map[string]any)
	if first["served_model"] != "gpt-5" || first["cost_micros"] != float64(7_000_000) || first["status"] != float64(200) ||
		first["key_id"] != "k2" || first["time"] != "2026-04-10T10:00:00Z" {
		t.Errorf("request view: %v", first)
	}

	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"model=gpt-5-mini", []string{"a2", "a1"}}, // the served model
		{"status=error", []string{"a3"}},
		{"status=ok&key=k2", []string{"a4"}},
		{"from=2026-03-02&to=2026-03-02", []string{"a2", "a3"}},
		{"route=cache", []string{}},
	} {
		got := requestIDsOf(t, a.mustStatus(a.do("GET", "/api/v1/requests?"+tc.query, nil), 200).json(t))
		slices.Sort(got)
		want := slices.Sorted(slices.Values(tc.want))
		if !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", tc.query, got, want)
		}
	}

	for _, tc := range []struct{ query, field string }{
		{"limit=0", "limit"}, {"limit=x", "limit"}, {"status=maybe", "status"},
		{"from=yesterday", "from"}, {"from=2026-03-05&to=2026-03-01", "to"}, {"cursor=forged", "cursor"},
	} {
		r := a.do("GET", "/api/v1/requests?"+tc.query, nil)
		if r.status != 400 {
			t.Errorf("%s: status %d: %s", tc.query, r.status, r.body)
			continue
		}
		if code, field := r.errCode(t); code != "tenancy.invalid_input" || field != tc.field {
			t.Errorf("%s: error %s on %q, want tenancy.invalid_input on %q", tc.query, code, field, tc.field)
		}
	}
	if r := f.browser().do("GET", "/api/v1/requests", nil); r.status != 401 {
		t.Errorf("anonymous list: %d", r.status)
	}
}

// TestAPIRequestDetail: a request's detail carries its attempts in order;
// another organisation's request id is 404, exactly like an unknown one.
func TestAPIRequestDetail(t *testing.T) {
	_, store, a, b, orgA, orgB := reportOrgs(t)
	r1 := reportRow(orgA, "a1", "2026-03-01", "gpt-5-mini", "k1", 0, 0, 200)
	err := store.InsertAttempts(context.Background(), []analytics.Attempt{
		{EventID: "at-1", Time: r1.Time, OrgID: orgA, KeyID: "k1", RequestID: "a1", OperationID: "op1", AttemptIndex: 1,
			Model: "gpt-5-mini", Provider: "openai", Upstream: "gpt-5-mini", Outcome: "served", Status: 200, CostMicros: 1_500_000},
		{EventID: "at-0", Time: r1.Time, OrgID: orgA, KeyID: "k1", RequestID: "a1", OperationID: "op1", AttemptIndex: 0,
			Model: "gpt-5", Provider: "openai", Upstream: "gpt-5", Outcome: "failed", Reason: "upstream_5xx", Status: 502},
		{EventID: "bt-0", Time: r1.Time, OrgID: orgB, KeyID: "kb", RequestID: "b1", OperationID: "opb", Outcome: "served"},
	})
	if err != nil {
		t.Fatal(err)
	}

	body := a.mustStatus(a.do("GET", "/api/v1/requests/a1", nil), 200).json(t)
	req, _ := body["request"].(map[string]any)
	if req["id"] != "a1" || req["cost_micros"] != float64(1_500_000) || req["served_model"] != "gpt-5-mini" {
		t.Errorf("request: %v", req)
	}
	ats, _ := body["attempts"].([]any)
	if len(ats) != 2 {
		t.Fatalf("attempts: %v", body["attempts"])
	}
	at0, at1 := ats[0].(map[string]any), ats[1].(map[string]any)
	if at0["index"] != float64(0) || at0["outcome"] != "failed" || at0["reason"] != "upstream_5xx" || at0["status"] != float64(502) ||
		at1["index"] != float64(1) || at1["outcome"] != "served" || at1["cost_micros"] != float64(1_500_000) {
		t.Errorf("attempts out of order or fields lost: %v", ats)
	}

	for _, id := range []string{"b1", "nope"} {
		r := a.do("GET", "/api/v1/requests/"+id, nil)
		if code, _ := r.errCode(t); r.status != 404 || code != "analytics.not_found" {
			t.Errorf("org A reading request %s: %d %s", id, r.status, r.body)
		}
	}
	b.mustStatus(b.do("GET", "/api/v1/requests/b1", nil), 200)
}
