package web_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/analyticstest"
)

// loadUsers stores n requests of org on 2026-03-05, user u-NN making NN+1
// of them (so the groups by user are ordered u-(n-1) first), costing 1000
// micros each.
func loadUsers(t *testing.T, s *analyticstest.Store, org string, users int) (requests int64) {
	t.Helper()
	var rows []analytics.Request
	for u := range users {
		for i := range u + 1 {
			r := reportRow(org, fmt.Sprintf("u%02d-%d", u, i), "2026-03-05", "gpt-5", "k1", 1000, 1500, 200)
			r.User = fmt.Sprintf("u-%02d", u)
			rows = append(rows, r)
		}
	}
	if err := s.InsertRequests(context.Background(), rows); err != nil {
		t.Fatal(err)
	}
	return int64(len(rows))
}

// costPage is the admin API's JSON page of a report.
type costPage struct {
	Offset     int
	Rows       []map[string]any
	Other      map[string]any
	Totals     map[string]any
	NextOffset *int `json:"next_offset"`
}

// TestCostReportPaging: the admin API's limit and offset give pages of the
// groups in order, with the groups off the page summed as "other" and the
// next page's offset; the whole report (no limit) streams every group as
// JSON and CSV; a page is JSON only.
func TestCostReportPaging(t *testing.T) {
	store := analyticstest.NewStore()
	f := newFixture(t, withReports(store))
	a := f.browser()
	org := str(a.signup("alice@a.example", "Org A"), "org", "id")
	total := loadUsers(t, store, org, 60) // 1830 requests
	const period = "/api/v1/reports/cost?from=2026-03-01&to=2026-03-31&group=user"

	var seen int64
	offset := 0
	for pages := 0; ; pages++ {
		var p costPage
		r := a.mustStatus(a.do("GET", fmt.Sprintf("%s&limit=25&offset=%d", period, offset), nil), 200)
		if err := json.Unmarshal(r.body, &p); err != nil {
			t.Fatal(err)
		}
		var onPage int64
		for i, row := range p.Rows {
			if want := fmt.Sprintf("u-%02d", 59-offset-i); row["value"] != want {
				t.Fatalf("offset %d row %d = %v, want %s", offset, i, row["value"], want)
			}
			onPage += int64(row["requests"].(float64))
		}
		seen += onPage
		if p.Totals["requests"] != float64(total) || p.Other["requests"] != float64(total-onPage) {
			t.Errorf("offset %d: totals %v other %v, want %d and %d", offset, p.Totals["requests"], p.Other["requests"], total, total-onPage)
		}
		if p.Other["cost_micros"] != float64((total-onPage)*1000) {
			t.Errorf("offset %d: other cost %v", offset, p.Other["cost_micros"])
		}
		if p.NextOffset == nil {
			if len(p.Rows) != 10 || pages != 2 {
				t.Errorf("last page at offset %d has %d rows after %d pages; want 10 after 2", offset, len(p.Rows), pages)
			}
			break
		}
		if len(p.Rows) != 25 || *p.NextOffset != offset+25 {
			t.Fatalf("offset %d: %d rows, next %d", offset, len(p.Rows), *p.NextOffset)
		}
		offset = *p.NextOffset
	}
	if seen != total {
		t.Errorf("pages hold %d requests, want %d", seen, total)
	}
	// A page holding every group has no "other".
	r := a.mustStatus(a.do("GET", period+"&limit=100", nil), 200)
	if strings.Contains(string(r.body), `"other"`) || strings.Contains(string(r.body), `"next_offset"`) {
		t.Errorf("a page of every group: %s", r.body)
	}

	// The whole report, streamed.
	var whole struct {
		Rows   []map[string]any
		Totals map[string]any
	}
	r = a.mustStatus(a.do("GET", period, nil), 200)
	if err := json.Unmarshal(r.body, &whole); err != nil {
		t.Fatalf("streamed JSON: %v\n%s", err, r.body)
	}
	if len(whole.Rows) != 60 || whole.Rows[0]["value"] != "u-59" || whole.Totals["requests"] != float64(total) {
		t.Errorf("streamed JSON: %d rows, first %v, totals %v", len(whole.Rows), whole.Rows[0]["value"], whole.Totals["requests"])
	}
	r = a.mustStatus(a.do("GET", period+"&format=csv", nil), 200)
	recs, err := csv.NewReader(strings.NewReader(string(r.body))).ReadAll()
	if err != nil || len(recs) != 61 || recs[1][0] != "u-59" || recs[60][0] != "u-00" {
		t.Errorf("streamed CSV: %d records, %v", len(recs), err)
	}

	for _, q := range []string{"&limit=0", "&limit=1001", "&limit=x", "&offset=-1", "&limit=10&format=csv"} {
		field := "limit"
		if strings.Contains(q, "offset") {
			field = "offset"
		}
		a.do("GET", period+q, nil).wantError(t, 400, "tenancy.invalid_input", field)
	}
}

// limitedReader is a Reader whose breakdowns stop at the store's limits.
type limitedReader struct{ analytics.Reader }

func (limitedReader) EachBreakdown(context.Context, string, analytics.BreakdownQuery, func(analytics.BreakdownRow) error) error {
	return fmt.Errorf("store: %w", analytics.ErrQueryLimit)
}

// TestCostReportStreamError: a report whose read fails before its first
// group answers with the error (not a 200 with an empty body).
func TestCostReportStreamError(t *testing.T) {
	f := newFixture(t, withReports(limitedReader{analyticstest.NewStore()}))
	a := f.browser()
	a.signup("alice@a.example", "Org A")
	for _, format := range []string{"json", "csv"} {
		a.do("GET", "/api/v1/reports/cost?format="+format, nil).wantError(t, 503, "analytics.query_limit", "")
	}
}

// TestConsoleReportTopGroups: the console shows the 25 largest groups, the
// others summed in an "other" row, and pages through the rest; the day
// report shows every day.
func TestConsoleReportTopGroups(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	org := v.signup("rep@example.com")
	total := loadUsers(t, f.reader, org, 60)
	const period = "/reports?from=2026-03-01&to=2026-03-31&group=user"

	first := v.get(period, nil)
	if n := first.doc.Find(`[data-testid^="report-row-"]`).Length(); n != 25 || first.tid("report-row-u-59").Length() != 1 {
		t.Fatalf("%d rows on the first page: %s", n, first.body)
	}
	// u-59 .. u-35 make 60+...+36 = 1200 requests; the other 630 are "other".
	if got := first.tid("report-other").Find("td").Eq(1).Text(); got != "630" {
		t.Errorf("other row requests %q, want 630 (of %d)", got, total)
	}
	if first.tid("report-prev").Length() != 0 || first.tid("report-range").Text() != "Groups 1-25" {
		t.Errorf("first page pager: %s", first.tid("report-pager").Text())
	}
	next := first.tid("report-next").AttrOr("href", "")
	if next != "/reports?from=2026-03-01&group=user&to=2026-03-31&offset=25" {
		t.Fatalf("next link %q", next)
	}
	last := v.get(period+"&offset=50", nil)
	if n := last.doc.Find(`[data-testid^="report-row-"]`).Length(); n != 10 || last.tid("report-row-u-00").Length() != 1 ||
		last.tid("report-next").Length() != 0 || last.tid("report-prev").Length() != 1 {
		t.Errorf("last page: %d rows: %s", n, last.body)
	}
	if days := v.get("/reports?from=2026-03-01&to=2026-03-31&group=day", nil); days.tid("report-other").Length() != 0 ||
		days.tid("report-pager").Length() != 0 || days.tid("report-row-2026-03-05").Length() != 1 {
		t.Errorf("day report: %s", days.body)
	}
}

// TestCostReportCSVQuoting: group values that need CSV quoting read back
// as they were stored.
func TestCostReportCSVQuoting(t *testing.T) {
	store := analyticstest.NewStore()
	f := newFixture(t, withReports(store))
	a := f.browser()
	org := str(a.signup("alice@a.example", "Org A"), "org", "id")
	users := []string{"a,b", `say "hi"`, " lead", `\.`, "two\nlines", "", "plain", "tab\there", "ünï"}
	var rows []analytics.Request
	for i, u := range users {
		for j := range i + 1 { // distinct counts keep the order known
			r := reportRow(org, fmt.Sprintf("q%d-%d", i, j), "2026-03-05", "gpt-5", "k1", 1000, 1500, 200)
			r.User = u
			rows = append(rows, r)
		}
	}
	if err := store.InsertRequests(context.Background(), rows); err != nil {
		t.Fatal(err)
	}
	r := a.mustStatus(a.do("GET", "/api/v1/reports/cost?from=2026-03-01&to=2026-03-31&group=user&format=csv", nil), 200)
	recs, err := csv.NewReader(strings.NewReader(string(r.body))).ReadAll()
	if err != nil || len(recs) != len(users)+1 {
		t.Fatalf("CSV: %d records, %v\n%s", len(recs), err, r.body)
	}
	for i, u := range users {
		got := recs[len(users)-i]
		// Stores keep text cleaned; compare with what the store returns.
		want, _ := store.Breakdown(context.Background(), org, time.Time{}, time.Time{}, analytics.DimUser)
		if got[0] != want[len(users)-1-i].Key || got[1] != fmt.Sprint(i+1) || got[6] != fmt.Sprintf("0.%06d", (i+1)*1000) {
			t.Errorf("user %q: record %q", u, got)
		}
	}
}
