package e2e

import (
	"encoding/csv"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// TestReportTopGroupsAndExport: on ClickHouse, the admin API pages a
// report's groups (limit, offset, next_offset, the rest summed as other),
// the console shows the largest 25 with an "other" row and a next page, and
// the CSV download streams every group.
func TestReportTopGroupsAndExport(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	chURL, _ := freshClickHouse(t)
	in := startHeddle(t, map[string]string{"HEDDLE_CLICKHOUSE_URL": chURL})
	waitReady(t, in.URL) // ClickHouse connected and migrated (13 migrations)
	a := signUp(t, in.URL, "report-scale@example.com", "openai", fakeSecret, up.URL+"/v1")
	// 27 users: u-00 sends 3 requests, u-01 2, the others 1 each.
	for u := range 27 {
		for range max(1, 3-u) {
			resp, body := chat(t, in.URL, a.Key, fmt.Sprintf(`{"model":"gpt-5-mini","user":"u-%02d","messages":[{"role":"user","content":"hi"}]}`, u))
			if resp.StatusCode != 200 {
				t.Fatalf("chat: %d %s", resp.StatusCode, body)
			}
		}
	}
	type row struct {
		Value    string `json:"value"`
		Requests int64  `json:"requests"`
	}
	var page struct {
		Rows       []row
		Other      *row
		Totals     row
		NextOffset *int `json:"next_offset"`
	}
	// The groups and the totals are two reads: wait until both have seen
	// all 30 requests (the largest 25 users hold 3 + 2 + 23 of them).
	testwait.Until(t, 30*time.Second, "the 30 requests in the report", func() bool {
		page.Rows, page.Other, page.NextOffset = nil, nil, nil
		a.api.do("GET", "/api/v1/reports/cost?group=user&limit=25", nil, 200, &page)
		var shown int64
		for _, r := range page.Rows {
			shown += r.Requests
		}
		return page.Totals.Requests == 30 && shown == 28
	})
	if len(page.Rows) != 25 || page.Rows[0].Value != "u-00" || page.Rows[0].Requests != 3 || page.Rows[1].Value != "u-01" ||
		page.Rows[24].Value != "u-24" || page.Other == nil || page.Other.Requests != 2 || page.NextOffset == nil || *page.NextOffset != 25 {
		t.Fatalf("first page: %+v", page)
	}
	page.NextOffset, page.Other = nil, nil
	a.api.do("GET", "/api/v1/reports/cost?group=user&limit=25&offset=25", nil, 200, &page)
	if len(page.Rows) != 2 || page.Rows[0].Value != "u-25" || page.Rows[1].Value != "u-26" || page.NextOffset != nil ||
		page.Other == nil || page.Other.Requests != 28 {
		t.Fatalf("second page: %+v", page)
	}

	html := consolePage(t, in.URL, "report-scale@example.com", "/reports?group=user")
	if n := strings.Count(html, `data-testid="report-row-`); n != 25 || !strings.Contains(html, `data-testid="report-other"`) ||
		!strings.Contains(html, `data-testid="report-next"`) {
		t.Errorf("console report: %d rows\n%s", n, html)
	}
	csvBody := consolePage(t, in.URL, "report-scale@example.com", "/reports/cost.csv?group=user")
	recs, err := csv.NewReader(strings.NewReader(csvBody)).ReadAll()
	if err != nil || len(recs) != 28 || recs[0][0] != "user" || recs[1][0] != "u-00" || recs[27][0] != "u-26" {
		t.Errorf("CSV: %d records, %v\n%s", len(recs), err, csvBody)
	}
}
