package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

// TestConsoleReportsByTagAndKeyName: a report grouped by tag counts a
// request under each of its tags and shows untagged ones as such; grouped
// by key it names the keys; the period presets keep the grouping.
func TestConsoleReportsByTagAndKeyName(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	org := v.signup("tags@example.com")
	keyID := createKey(t, v, "search-svc")
	mk := func(id, tags string, cost int64) analytics.Request {
		r := request(org, id, time.Hour, "gpt-5-mini", "routed", 200, "", cost, 2*cost)
		r.Tags, r.KeyID = tags, keyID
		return r
	}
	if err := f.reader.InsertRequests(context.Background(), []analytics.Request{
		mk("t1", "ci,team:search", 100), mk("t2", "team:search", 200), mk("t3", "", 50),
	}); err != nil {
		t.Fatal(err)
	}
	p := v.get("/reports?group=tag", nil)
	if p.status != 200 {
		t.Fatalf("report: %d %s", p.status, p.text("report-error"))
	}
	for key, want := range map[string][2]string{"team:search": {"team:search", "$0.000300"}, "ci": {"ci", "$0.000100"}, "": {"(untagged)", "$0.000050"}} {
		row := p.tid("report-row-" + key)
		got := [2]string{strings.TrimSpace(row.Find("td").First().Text()), strings.TrimSpace(row.Find(`[data-testid="report-cost"]`).Text())}
		if got != want {
			t.Errorf("tag %q: %v, want %v", key, got, want)
		}
	}
	// t1 has two tags: the rows count it twice, the total once.
	if got := strings.TrimSpace(p.tid("report-totals").Find("td").Eq(1).Text()); got != "3" {
		t.Errorf("total requests %q, want 3", got)
	}
	if href := p.tid("report-preset-7 d").AttrOr("href", ""); href != "/reports?from=2026-11-23&group=tag&to=2026-11-29" {
		t.Errorf("7 d preset %q", href)
	}
	byKey := v.get("/reports?group=key", nil)
	if got := strings.TrimSpace(byKey.tid("report-row-" + keyID).Find("td").First().Text()); !strings.HasPrefix(got, "search-svc (rk_") {
		t.Errorf("key row named %q", got)
	}
}
