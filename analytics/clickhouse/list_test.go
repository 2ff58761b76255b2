package clickhouse_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

// TestListStopsAtReadBudget: a filter that matches one old row of an
// organisation stops at the read budget with an empty page that says where
// it stopped and continues older; following the continuations finds the
// row exactly once and ends. Without the budget spent, the same search
// finds it in one page, and a full page never says it stopped. A row every
// half second puts the rare row 25 minutes back: past the first window (a
// minute), so only the widening finds it in one page; each page of the
// continuations searches a minute further back.
func TestListStopsAtReadBudget(t *testing.T) {
	s := openFresh(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	now := time.Now().UTC()
	var reqs []analytics.Request
	for i := range 3000 {
		model := "common"
		if i == 2990 {
			model = "rare"
		}
		reqs = append(reqs, analytics.Request{EventID: fmt.Sprintf("ev-%05d", i), Time: now.Add(-time.Duration(i) * 500 * time.Millisecond),
			RequestID: fmt.Sprintf("r-%d", i), OrgID: "org-a", KeyID: "k", ServedModel: model, RouteKind: "explicit", Status: 200})
	}
	if err := s.InsertRequests(ctx, reqs); err != nil {
		t.Fatal(err)
	}
	rare := analytics.RequestFilter{Model: "rare"}

	page, err := s.ListRequests(ctx, "org-a", rare, "", 50)
	if err != nil || len(page.Requests) != 1 || page.Next != "" || !page.SearchedFrom.IsZero() {
		t.Fatalf("within the budget: %d rows, next %q, searched from %v, %v", len(page.Requests), page.Next, page.SearchedFrom, err)
	}

	s.SetListBudget(1) // the first window (a minute: 120 rows) spends it
	full, err := s.ListRequests(ctx, "org-a", analytics.RequestFilter{}, "", 50)
	if err != nil || len(full.Requests) != 50 || full.Next == "" || !full.SearchedFrom.IsZero() {
		t.Fatalf("a full page: %d rows, next %q, searched from %v, %v", len(full.Requests), full.Next, full.SearchedFrom, err)
	}
	var found []analytics.Request
	cursor, pages, searched := "", 0, time.Now()
	for {
		p, err := s.ListRequests(ctx, "org-a", rare, cursor, 50)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		found = append(found, p.Requests...)
		if p.Next == "" {
			if !p.SearchedFrom.IsZero() {
				t.Fatalf("page %d ends the search but says it stopped at %v", pages, p.SearchedFrom)
			}
			break
		}
		if p.SearchedFrom.IsZero() {
			t.Fatalf("page %d of %d rows continues without saying where it stopped", pages, len(p.Requests))
		}
		// A page that spends the budget in its first window searched a
		// minute behind now or its cursor, not an hour.
		if p.SearchedFrom.Before(searched.Add(-2 * time.Minute)) {
			t.Fatalf("page %d searched back to %v from %v: more than the first window", pages, p.SearchedFrom, searched)
		}
		searched = p.SearchedFrom
		for _, r := range p.Requests {
			if r.Time.Before(p.SearchedFrom) {
				t.Fatalf("page %d holds a row at %v, older than where it stopped (%v)", pages, r.Time, p.SearchedFrom)
			}
		}
		if pages > 100 {
			t.Fatal("the continuations do not end")
		}
		cursor = p.Next
	}
	if pages < 2 || len(found) != 1 || found[0].EventID != "ev-02990" {
		t.Fatalf("after %d pages found %+v; want ev-02990 once, past the first page", pages, found)
	}
}

// TestListFarCursorKeepsReadBudget: a crafted cursor at the largest time a
// cursor can carry (or far in the future) searches within the read budget
// as a first page does. Before, the cursor's time + 1 overflowed (or the
// windows widened over empty future time) and the last window read the
// whole organisation back to its start, unbudgeted, finding the rare row.
func TestListFarCursorKeepsReadBudget(t *testing.T) {
	s := openFresh(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	now := time.Now().UTC()
	var reqs []analytics.Request
	for i := range 3000 {
		model := "common"
		if i == 2990 {
			model = "rare"
		}
		reqs = append(reqs, analytics.Request{EventID: fmt.Sprintf("ev-%05d", i), Time: now.Add(-time.Duration(i) * 36 * time.Second),
			RequestID: fmt.Sprintf("r-%d", i), OrgID: "org-a", KeyID: "k", ServedModel: model, RouteKind: "explicit", Status: 200})
	}
	if err := s.InsertRequests(ctx, reqs); err != nil {
		t.Fatal(err)
	}
	s.SetListBudget(1) // the first window spends it
	rare := analytics.RequestFilter{Model: "rare"}
	for _, c := range []analytics.Cursor{
		{TimeMs: math.MaxInt64, EventID: "zzz"},
		{TimeMs: math.MaxInt64 - 1, EventID: "zzz"},
		{TimeMs: now.AddDate(100, 0, 0).UnixMilli(), EventID: "zzz"},
	} {
		p, err := s.ListRequests(ctx, "org-a", rare, c.Encode(), 50)
		if err != nil {
			t.Fatalf("cursor at %d: %v", c.TimeMs, err)
		}
		if len(p.Requests) != 0 || p.SearchedFrom.IsZero() || p.Next == "" {
			t.Fatalf("cursor at %d: %d rows, searched from %v, next %q; want an empty page stopped at the budget",
				c.TimeMs, len(p.Requests), p.SearchedFrom, p.Next)
		}
		if p.SearchedFrom.Before(now.Add(-24 * time.Hour)) {
			t.Fatalf("cursor at %d searched back to %v, past the budget's first windows", c.TimeMs, p.SearchedFrom)
		}
	}
}
