package web_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/heddle-gw/heddle/analytics"
)

func TestConsoleRequestsFilters(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	org := v.signup("filters@example.com")
	keyA, keyB := v.createKey("alpha"), v.createKey("beta")
	at := func(r analytics.Request, key string) analytics.Request { r.KeyID = key; return r }
	rows := []analytics.Request{
		at(request(org, "r-ok-a", time.Hour, "gpt-5-mini", "routed", 200, "", 10, 20), keyA),
		at(request(org, "r-err-a", 2*time.Hour, "", "explicit", 502, "dispatch.attempts_exhausted", 0, 0), keyA),
		at(request(org, "r-ok-b", 26*time.Hour, "claude-haiku", "cache", 200, "", 0, 20), keyB),
		// Served 200 but broke after commit: an error, not ok.
		at(request(org, "r-late-b", 50*time.Hour, "gpt-5", "pinned", 200, "dispatch.committed", 5, 5), keyB),
		at(request("other-org", "r-foreign", time.Hour, "gpt-5-mini", "routed", 200, "", 1, 1), keyA),
	}
	if err := f.reader.InsertRequests(context.Background(), rows); err != nil {
		t.Fatal(err)
	}
	ids := func(p *page) string {
		return strings.Join(p.doc.Find(`[data-testid^="request-row-"]`).Map(func(_ int, s *goquery.Selection) string {
			return strings.TrimPrefix(s.AttrOr("data-testid", ""), "request-row-")
		}), " ")
	}
	today, yesterday := consoleNow.Format(time.DateOnly), consoleNow.AddDate(0, 0, -1).Format(time.DateOnly)
	for _, tc := range []struct {
		name, query string
		status      int
		want        string
		errText     string
	}{
		{"none", "", 200, "r-ok-a r-err-a r-ok-b r-late-b", ""},
		{"status ok", "status=ok", 200, "r-ok-a r-ok-b", ""},
		{"status error", "status=error", 200, "r-err-a r-late-b", ""},
		{"legacy errors=1", "errors=1", 200, "r-err-a r-late-b", ""},
		{"key", "key=" + keyB, 200, "r-ok-b r-late-b", ""},
		{"key and status", "key=" + keyA + "&status=ok", 200, "r-ok-a", ""},
		{"model", "model=claude-haiku", 200, "r-ok-b", ""},
		{"route", "route=cache", 200, "r-ok-b", ""},
		{"from a day", "from=" + today, 200, "r-ok-a r-err-a", ""},
		{"to a day, inclusive", "to=" + yesterday, 200, "r-ok-b r-late-b", ""},
		{"one day", "from=" + yesterday + "&to=" + yesterday, 200, "r-ok-b", ""},
		{"from a time", "from=" + consoleNow.Add(-90*time.Minute).Format("2006-01-02T15:04"), 200, "r-ok-a", ""},
		{"everything", "model=gpt-5-mini&route=routed&status=ok&key=" + keyA + "&from=" + today + "&to=" + today, 200, "r-ok-a", ""},
		{"bad from", "from=yesterday", 400, "", "From must be a date like 2026-11-29 or a UTC time like 2026-11-29T15:04."},
		{"bad status", "status=maybe", 400, "", "Status must be ok or error."},
		{"to before from", "from=" + today + "&to=" + yesterday, 400, "", "The time range ends before it starts."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := v.get("/requests?"+tc.query, htmx)
			if p.status != tc.status || p.isFullPage() {
				t.Fatalf("status %d full %v: %s", p.status, p.isFullPage(), p.body)
			}
			if got := ids(p); got != tc.want {
				t.Errorf("rows %q, want %q", got, tc.want)
			}
			if got := p.text("requests-error"); got != tc.errText {
				t.Errorf("error %q, want %q", got, tc.errText)
			}
		})
	}

	// The full page echoes the filter in its form and offers the org's keys.
	twoDaysAgo := consoleNow.AddDate(0, 0, -2).Format(time.DateOnly)
	q := url.Values{"model": {"gpt-5"}, "route": {"pinned"}, "status": {"error"}, "key": {keyB}, "from": {twoDaysAgo}, "to": {today}}
	full := v.get("/requests?"+q.Encode(), nil)
	if full.status != 200 || !full.isFullPage() || ids(full) != "r-late-b" {
		t.Fatalf("filtered page: %d %q", full.status, ids(full))
	}
	if full.tid("filter-model").AttrOr("value", "") != "gpt-5" || full.tid("filter-from").AttrOr("value", "") != twoDaysAgo ||
		full.tid("filter-to").AttrOr("value", "") != today ||
		full.tid("filter-status").Find("option[selected]").AttrOr("value", "") != "error" ||
		full.tid("filter-route").Find("option[selected]").AttrOr("value", "") != "pinned" ||
		full.tid("filter-key").Find("option[selected]").AttrOr("value", "") != keyB {
		t.Errorf("the form does not echo the filter: %s", full.tid("requests-filter").Text())
	}
	if n := full.tid("filter-key").Find("option").Length(); n != 3 {
		t.Errorf("key choices: %d, want any + 2", n)
	}
	if !strings.Contains(full.tid("filter-key").Text(), "beta (rk_") {
		t.Errorf("key labels: %q", full.tid("filter-key").Text())
	}
}

func TestConsoleRequestsPagingKeepsFilters(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	org := v.signup("pagingfilter@example.com")
	var rows []analytics.Request
	for i := range 60 {
		r := request(org, fmt.Sprintf("p-%02d", i), time.Duration(i+1)*time.Minute, "gpt-5-mini", "routed", 200, "", 1, 2)
		if i%2 == 1 {
			r.Status, r.ErrorCode = 503, "routing.unavailable"
		}
		rows = append(rows, r)
	}
	if err := f.reader.InsertRequests(context.Background(), rows); err != nil {
		t.Fatal(err)
	}
	from := consoleNow.Format(time.DateOnly)
	p := v.get("/requests?status=ok&from="+from, htmx)
	next := p.tid("requests-next").AttrOr("hx-get", "")
	u, err := url.Parse(next)
	if err != nil || u.Query().Get("status") != "ok" || u.Query().Get("from") != from || u.Query().Get("cursor") == "" {
		t.Fatalf("next link %q drops the filter", next)
	}
	seen := p.doc.Find(`[data-testid^="request-link-"]`).Length()
	for pages := 1; next != ""; pages++ {
		if pages > 5 {
			t.Fatal("paging does not end")
		}
		p = v.get(next, htmx)
		seen += p.doc.Find(`[data-testid^="request-link-"]`).Length()
		if n := p.doc.Find(`tr.failed`).Length(); n != 0 {
			t.Errorf("page %d lists %d failed requests", pages+1, n)
		}
		next = p.tid("requests-next").AttrOr("hx-get", "")
	}
	if seen != 30 {
		t.Errorf("paged through %d ok requests, want 30", seen)
	}
}
