// Package requests holds the console's requests explorer (filters and
// cursor paging through htmx) and one request's attempt timeline.
//
// Ring: presentation. No I/O.
package requests

import (
	"net/url"
	"strconv"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/web/views/layout"
)

// Filter is the explorer's filter form.
type Filter struct {
	Model      string
	RouteKind  string
	ErrorsOnly bool
}

// Query returns the filter as URL query parameters, plus cursor when set.
func (f Filter) Query(cursor string) string {
	v := url.Values{}
	if f.Model != "" {
		v.Set("model", f.Model)
	}
	if f.RouteKind != "" {
		v.Set("route", f.RouteKind)
	}
	if f.ErrorsOnly {
		v.Set("errors", "1")
	}
	if cursor != "" {
		v.Set("cursor", cursor)
	}
	return v.Encode()
}

// RouteKinds are the route kinds the filter offers.
var RouteKinds = []string{"explicit", "routed", "pinned", "cache"}

// ResultsProps is one page of results.
type ResultsProps struct {
	Filter Filter
	Rows   []analytics.Request
	Next   string // cursor of the next page, "" on the last
	Cursor string // cursor of this page, "" on the first
	Error  string
}

// PageProps is the whole explorer page.
type PageProps struct {
	Layout  layout.Props
	Results ResultsProps
}

// TimelineProps is one request and its attempts.
type TimelineProps struct {
	Layout    layout.Props
	RequestID string
	Timeline  analytics.RequestTimeline
}

func requestURL(id string) string { return "/requests/" + url.PathEscape(id) }

func explorerURL(f Filter, cursor string) string {
	q := f.Query(cursor)
	if q == "" {
		return "/requests"
	}
	return "/requests?" + q
}

func rowClass(r analytics.Request) string {
	if r.Failed() {
		return "failed"
	}
	return ""
}

func tokens(in, out int64) string {
	return strconv.FormatInt(in, 10) + " in / " + strconv.FormatInt(out, 10) + " out"
}

func outcomeClass(o string) string {
	switch o {
	case "served":
		return "pill good"
	case "failed", "aborted":
		return "pill bad"
	}
	return "pill"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func itoa(n int) string { return strconv.Itoa(n) }

// shortID is the first 8 characters of an id, enough to tell operations apart.
func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
