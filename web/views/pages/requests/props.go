// Package requests holds the console's requests explorer (filters and
// cursor paging through htmx) and one request's attempt timeline.
//
// Ring: presentation. No I/O.
package requests

import (
	"net/url"
	"strconv"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/web/views/layout"
)

// Filter is the explorer's filter form, as typed (it is kept in the URL).
type Filter struct {
	Model     string
	RouteKind string
	Status    string // "", "ok" or "error"
	KeyID     string
	From      string // UTC date (2006-01-02) or date and time (2006-01-02T15:04)
	To        string // the same; a date includes its whole day
}

// Query returns the filter as URL query parameters, plus cursor when set.
func (f Filter) Query(cursor string) string {
	v := url.Values{}
	for _, p := range [][2]string{
		{"model", f.Model}, {"route", f.RouteKind}, {"status", f.Status}, {"key", f.KeyID},
		{"from", f.From}, {"to", f.To}, {"cursor", cursor},
	} {
		if p[1] != "" {
			v.Set(p[0], p[1])
		}
	}
	return v.Encode()
}

// KeyOption is one key the filter offers.
type KeyOption struct {
	ID    string
	Label string // name and prefix
}

// Statuses are the outcomes the filter offers.
var Statuses = []string{"ok", "error"}

// RouteKinds are the route kinds the filter offers.
var RouteKinds = []string{"explicit", "routed", "pinned", "cache"}

// ResultsProps is one page of results.
type ResultsProps struct {
	Filter Filter
	// KeyNames names keys by id ("name (rk_prefix)"); a key missing from it
	// (deleted) shows its id.
	KeyNames map[string]string
	Rows     []analytics.Request
	Next     string // cursor of the next page, "" on the last
	Cursor   string // cursor of this page, "" on the first
	// SearchedFrom, when set, is where the search stopped (its read budget
	// spent): Rows are the matches from then on and Next searches older.
	SearchedFrom time.Time
	Error        string
}

// PageProps is the whole explorer page.
type PageProps struct {
	Layout  layout.Props
	Keys    []KeyOption
	Results ResultsProps
}

// TimelineProps is one request and its attempts.
type TimelineProps struct {
	Layout    layout.Props
	RequestID string
	Timeline  analytics.RequestTimeline
	KeyName   string // the key's name and prefix; its id when unknown
	Waterfall Waterfall
	// Content is the stored prompt and response, nil when none is shown;
	// ContentNote then says why.
	Content     *Content
	ContentNote string
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

// keyName is the name KeyNames gives id, else id itself ("-" for none).
func keyName(names map[string]string, id string) string {
	if n, ok := names[id]; ok {
		return n
	}
	if id == "" {
		return "-"
	}
	return id
}

// candidates are the router's scores recorded on r, best first.
func candidates(r *analytics.Request) []analytics.Candidate {
	return analytics.ParseCandidates(r.Candidates)
}

func score(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

func servedClass(c analytics.Candidate, served string) string {
	if c.Model == served {
		return "served"
	}
	return ""
}
