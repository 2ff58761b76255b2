package web_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/analytics"
)

// loadConsoleReports stores two requests of org in the console's default
// period (2026-10-31 to 2026-11-29), one of which costs more than its
// baseline, and one of other.
func (f *consoleFixture) loadConsoleReports(org, other string) {
	f.t.Helper()
	err := f.reader.InsertRequests(context.Background(), []analytics.Request{
		reportRow(org, "c1", "2026-11-02", "gpt-5-mini", "k1", 1_500_000, 4_000_000, 200),
		reportRow(org, "c2", "2026-11-20", "gpt-5", "k2", 3_000_000, 2_000_000, 200),
		reportRow(other, "o1", "2026-11-20", "gpt-5", "ko", 9_000_000, 9_000_000, 200),
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

func TestConsoleReportsPage(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	org := v.signup("rep@example.com")
	other := f.visitor()
	otherOrg := other.signup("other@example.com")
	f.loadConsoleReports(org, otherOrg)

	full := v.get("/reports", nil)
	if full.status != 200 || !full.isFullPage() || full.tid("nav-reports").AttrOr("class", "") != "active" || full.tid("report-form").Length() != 1 {
		t.Fatalf("full reports page: %d %s", full.status, full.body)
	}
	if from, to := full.tid("report-from").AttrOr("value", ""), full.tid("report-to").AttrOr("value", ""); from != "2026-10-31" || to != "2026-11-29" {
		t.Errorf("default period %s..%s", from, to)
	}
	if href := full.tid("report-csv").AttrOr("href", ""); href != "/reports/cost.csv?from=2026-10-31&group=day&to=2026-11-29" {
		t.Errorf("CSV link %q", href)
	}
	if href := full.tid("report-json").AttrOr("href", ""); href != "/reports/cost.json?from=2026-10-31&group=day&to=2026-11-29" {
		t.Errorf("JSON link %q", href)
	}
	if n := full.doc.Find(`[data-testid^="report-row-"]`).Length(); n != 2 || full.tid("report-row-2026-11-02").Length() != 1 {
		t.Errorf("%d preview rows: %s", n, full.body)
	}
	totals := full.tid("report-totals")
	if c, s := totals.Find(`[data-testid="report-cost"]`).Text(), totals.Find(`[data-testid="report-savings"]`).Text(); c != "$4.50" || s != "$1.50" {
		t.Errorf("totals cost %q savings %q", c, s)
	}
	if s := v.get("/reports?group=model", nil).tid("report-row-gpt-5").Find(`[data-testid="report-savings"]`); s.Text() != "-$1.00" || !s.HasClass("neg") {
		t.Errorf("negative savings shown as %q class %q", s.Text(), s.AttrOr("class", ""))
	}

	// htmx gets the preview alone, with links for the new values.
	hx := v.get("/reports?from=2026-11-01&to=2026-11-10&group=key", htmx)
	if hx.status != 200 || hx.isFullPage() || hx.tid("report-table").Length() != 1 || hx.tid("nav-reports").Length() != 0 {
		t.Fatalf("htmx preview: %d %s", hx.status, hx.body)
	}
	if href := hx.tid("report-csv").AttrOr("href", ""); href != "/reports/cost.csv?from=2026-11-01&group=key&to=2026-11-10" {
		t.Errorf("htmx CSV link %q", href)
	}
	if hx.tid("report-row-k1").Length() != 1 || hx.tid("report-row-k2").Length() != 0 {
		t.Errorf("htmx rows: %s", hx.body)
	}

	// Invalid forms re-render with 422 and no report.
	for _, tc := range []struct{ query, field string }{
		{"from=soon", "from"}, {"from=2026-11-10&to=2026-11-01", "to"}, {"from=2024-01-01&to=2026-01-01", "to"}, {"group=week", "group"},
	} {
		p := v.get("/reports?"+tc.query, htmx)
		if p.status != 422 || p.isFullPage() || p.tid("field-error-"+tc.field).Length() != 1 || p.tid("report-table").Length() != 0 {
			t.Errorf("%s: %d %s", tc.query, p.status, p.body)
		}
	}
	if p := v.get("/reports?from=soon", nil); p.status != 422 || !p.isFullPage() || p.tid("report-from").AttrOr("value", "") != "soon" {
		t.Errorf("non-htmx invalid form: %d", p.status)
	}

	// The other organisation's preview holds only its own row.
	op := other.get("/reports?group=key", nil)
	if op.tid("report-row-ko").Length() != 1 || op.tid("report-row-k1").Length() != 0 || op.tid("report-row-k2").Length() != 0 {
		t.Errorf("other organisation's preview: %s", op.body)
	}
}

func TestConsoleReportDownloads(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	org := v.signup("dl@example.com")
	other := f.visitor()
	f.loadConsoleReports(org, other.signup("other@example.com"))

	csv := v.get("/reports/cost.csv?from=2026-11-01&to=2026-11-30&group=model", nil)
	if csv.status != 200 || csv.header.Get("Content-Type") != "text/csv; charset=utf-8" ||
		csv.header.Get("Content-Disposition") != "attachment; filename=heddle-cost-model-2026-11-01-2026-11-30.csv" {
		t.Fatalf("CSV: %d %v", csv.status, csv.header)
	}
	want := "model,requests,errors,cache_hits,input_tokens,output_tokens,cost_usd,baseline_usd,savings_usd\n" +
		"gpt-5,1,0,0,100,20,3.000000,2.000000,-1.000000\n" +
		"gpt-5-mini,1,0,0,100,20,1.500000,4.000000,2.500000\n"
	if csv.body != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", csv.body, want)
	}

	js := v.get("/reports/cost.json?from=2026-11-01&to=2026-11-30&format=csv", nil)
	var rep struct {
		From, To, Group string
		Rows            []map[string]any
		Totals          map[string]any
	}
	if err := json.Unmarshal([]byte(js.body), &rep); err != nil || js.status != 200 {
		t.Fatalf("JSON: %d %v %s", js.status, err, js.body)
	}
	if rep.Group != "day" || len(rep.Rows) != 2 || rep.Totals["cost_usd"] != 4.5 || rep.Totals["savings_micros"] != 1_500_000.0 {
		t.Errorf("JSON report %s", js.body)
	}

	if p := v.get("/reports/cost.csv?group=week", nil); p.status != 400 || !strings.Contains(p.text("error-message"), "group") {
		t.Errorf("bad group: %d %s", p.status, p.body)
	}
	anon := f.visitor()
	if p := anon.get("/reports/cost.csv", nil); p.status != 303 || !strings.HasPrefix(p.header.Get("Location"), "/login?next="+url.QueryEscape("/reports/cost.csv")) {
		t.Errorf("anonymous download: %d %s", p.status, p.header.Get("Location"))
	}
}
