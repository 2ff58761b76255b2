package web_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/analyticstest"
	"github.com/heddle-gw/heddle/web"
)

func withReports(r analytics.Reader) fixtureOpt { return func(d *deps) { d.Reader = r } }

// reportRow is an analytics request of org on the given UTC date.
func reportRow(org, id, day, model, key string, cost, baseline int64, status int) analytics.Request {
	at, _ := time.Parse(time.DateOnly, day)
	return analytics.Request{
		EventID: "ev-" + id, Time: at.Add(10 * time.Hour), RequestID: id, OrgID: org, KeyID: key, User: "u-" + key,
		Format: "openai-chat", RequestedModel: "gpt-5", ServedModel: model, Provider: "openai", RouteKind: "routed",
		Attempts: 1, InputTokens: 100, OutputTokens: 20, CostMicros: cost, BaselineMicros: baseline,
		SavingsMicros: baseline - cost, LatencyMs: 100, Status: status,
	}
}

// loadReports stores three requests of orgA (one on 2026-03-01, two on
// 2026-03-02, one of which costs more than its baseline and failed), one
// outside the period and one of orgB.
func loadReports(t *testing.T, s *analyticstest.Store, orgA, orgB string) {
	t.Helper()
	err := s.InsertRequests(context.Background(), []analytics.Request{
		reportRow(orgA, "a1", "2026-03-01", "gpt-5-mini", "k1", 1_500_000, 4_000_000, 200),
		reportRow(orgA, "a2", "2026-03-02", "gpt-5-mini", "k1", 250, 1_000, 200),
		reportRow(orgA, "a3", "2026-03-02", "gpt-5", "k2", 3_000_000, 2_000_000, 502),
		reportRow(orgA, "a4", "2026-04-10", "gpt-5", "k2", 7_000_000, 7_000_000, 200),
		reportRow(orgB, "b1", "2026-03-01", "gpt-5", "kb", 9_000_000, 9_000_000, 200),
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestCostReportCSV(t *testing.T) {
	store := analyticstest.NewStore()
	f := newFixture(t, withReports(store))
	a := f.browser()
	orgA := str(a.signup("alice@a.example", "Org A"), "org", "id")
	b := f.browser()
	orgB := str(b.signup("bob@b.example", "Org B"), "org", "id")
	loadReports(t, store, orgA, orgB)

	r := a.mustStatus(a.do("GET", "/api/v1/reports/cost?from=2026-03-01&to=2026-03-31&format=csv", nil), 200)
	if ct := r.header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if cd := r.header.Get("Content-Disposition"); cd != "attachment; filename=heddle-cost-day-2026-03-01-2026-03-31.csv" {
		t.Errorf("Content-Disposition %q", cd)
	}
	recs, err := csv.NewReader(strings.NewReader(string(r.body))).ReadAll()
	if err != nil {
		t.Fatalf("CSV: %v\n%s", err, r.body)
	}
	want := [][]string{
		{"day", "requests", "errors", "cache_hits", "input_tokens", "output_tokens", "cost_usd", "baseline_usd", "savings_usd"},
		{"2026-03-01", "1", "0", "0", "100", "20", "1.500000", "4.000000", "2.500000"},
		{"2026-03-02", "2", "1", "0", "200", "40", "3.000250", "2.001000", "-0.999250"},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d:\n%s", len(recs), len(want), r.body)
	}
	for i := range want {
		if strings.Join(recs[i], ",") != strings.Join(want[i], ",") {
			t.Errorf("record %d = %v, want %v", i, recs[i], want[i])
		}
	}

	// Grouped by model: organisation B's gpt-5 row never shows.
	r = a.mustStatus(a.do("GET", "/api/v1/reports/cost?from=2026-03-01&to=2026-03-31&group=model&format=csv", nil), 200)
	if cd := r.header.Get("Content-Disposition"); !strings.Contains(cd, "heddle-cost-model-2026-03-01-2026-03-31.csv") {
		t.Errorf("Content-Disposition %q", cd)
	}
	if got, w := string(r.body), "model,requests,errors,cache_hits,input_tokens,output_tokens,cost_usd,baseline_usd,savings_usd\n"+
		"gpt-5-mini,2,0,0,200,40,1.500250,4.001000,2.500750\n"+
		"gpt-5,1,1,0,100,20,3.000000,2.000000,-1.000000\n"; got != w {
		t.Errorf("model CSV:\n%s\nwant:\n%s", got, w)
	}
}

func TestCostReportJSON(t *testing.T) {
	store := analyticstest.NewStore()
	f := newFixture(t, withReports(store))
	a := f.browser()
	orgA := str(a.signup("alice@a.example", "Org A"), "org", "id")
	b := f.browser()
	orgB := str(b.signup("bob@b.example", "Org B"), "org", "id")
	loadReports(t, store, orgA, orgB)
	viewer := f.invite(a, orgA, "vera@a.example", "viewer")

	var rep struct {
		From, To, Group string
		Rows            []map[string]any
		Totals          map[string]any
	}
	r := viewer.mustStatus(viewer.do("GET", "/api/v1/reports/cost?from=2026-03-01&to=2026-04-30&group=key", nil), 200)
	if err := json.Unmarshal(r.body, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.From != "2026-03-01" || rep.To != "2026-04-30" || rep.Group != "key" || len(rep.Rows) != 2 {
		t.Fatalf("report %s", r.body)
	}
	// Ties (k1 and k2 have two requests each) are ordered by key.
	if rep.Rows[0]["value"] != "k1" || rep.Rows[1]["value"] != "k2" || rep.Rows[1]["cost_usd"] != 10.0 ||
		rep.Rows[1]["savings_micros"] != -1_000_000.0 {
		t.Errorf("rows %v", rep.Rows)
	}
	wantTotals := map[string]float64{
		"requests": 4, "errors": 1, "cache_hits": 0, "input_tokens": 400, "output_tokens": 80,
		"cost_usd": 11.50025, "baseline_usd": 13.001, "savings_usd": 1.50075,
		"cost_micros": 11_500_250, "baseline_micros": 13_001_000, "savings_micros": 1_500_750,
	}
	for k, w := range wantTotals {
		if rep.Totals[k] != w {
			t.Errorf("totals[%s] = %v, want %v", k, rep.Totals[k], w)
		}
	}
	if _, ok := rep.Totals["value"]; ok {
		t.Error("totals carry a group value")
	}
	if !strings.Contains(string(r.body), `"savings_usd":-1.000000`) {
		t.Errorf("negative savings are not an exact decimal: %s", r.body)
	}

	// Organisation B sees only its own row.
	r = b.mustStatus(b.do("GET", "/api/v1/reports/cost?from=2026-03-01&to=2026-04-30&group=key", nil), 200)
	if err := json.Unmarshal(r.body, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 1 || rep.Rows[0]["value"] != "kb" || rep.Totals["cost_micros"] != 9_000_000.0 {
		t.Errorf("organisation B's report: %s", r.body)
	}

	// Defaults: the last 30 UTC days grouped by day, as JSON.
	r = a.mustStatus(a.do("GET", "/api/v1/reports/cost", nil), 200)
	if err := json.Unmarshal(r.body, &rep); err != nil {
		t.Fatal(err)
	}
	today := time.Now().UTC()
	if rep.Group != "day" || rep.To != today.Format(time.DateOnly) || rep.From != today.AddDate(0, 0, -29).Format(time.DateOnly) ||
		rep.Rows == nil {
		t.Errorf("default report: %s", r.body)
	}
}

func TestCostReportErrors(t *testing.T) {
	f := newFixture(t, withReports(analyticstest.NewStore()))
	a := f.browser()
	a.signup("alice@a.example", "Org A")
	for _, tc := range []struct {
		query string
		field string
	}{
		{"from=2026-13-01", "from"},
		{"from=yesterday", "from"},
		{"to=2026-02-30", "to"},
		{"from=2026-03-02&to=2026-03-01", "to"},
		{"from=2025-01-01&to=2026-01-02", "to"},
		{"group=week", "group"},
		{"group=failure_reason", "group"},
		{"format=xml", "format"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			a.do("GET", "/api/v1/reports/cost?"+tc.query, nil).wantError(t, 400, "tenancy.invalid_input", tc.field)
		})
	}
	// 366 days (a leap year) are allowed.
	a.mustStatus(a.do("GET", "/api/v1/reports/cost?from=2024-01-01&to=2024-12-31", nil), 200)

	anon := f.browser()
	anon.do("GET", "/api/v1/reports/cost", nil).wantError(t, 401, "tenancy.unauthorized", "")
}

func TestDollars(t *testing.T) {
	for _, tc := range []struct {
		micros int64
		want   string
	}{
		{0, "0.000000"}, {1, "0.000001"}, {1_500_000, "1.500000"}, {-250, "-0.000250"},
		{-1_000_000, "-1.000000"}, {-9223372036854775808, "-9223372036854.775808"},
	} {
		if got := web.Dollars(tc.micros); got != tc.want {
			t.Errorf("Dollars(%d) = %q, want %q", tc.micros, got, tc.want)
		}
	}
}
