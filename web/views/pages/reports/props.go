// Package reports holds the console's cost report page: the period and
// grouping form, the CSV and JSON download links and a preview of the rows.
//
// Ring: presentation. No I/O.
package reports

import (
	"net/url"
	"strconv"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/web/views/layout"
)

// FormProps is the report form with the values as typed and their errors.
type FormProps struct {
	From   string // YYYY-MM-DD
	To     string
	Group  string
	Groups []string // the valid groups, in display order
	Error  string
	Fields map[string]string
}

// query is the form's values as a query string.
func (p FormProps) query() string {
	return url.Values{"from": {p.From}, "to": {p.To}, "group": {p.Group}}.Encode()
}

// CSVURL is the console's CSV download for the form's values.
func (p FormProps) CSVURL() string { return "/reports/cost.csv?" + p.query() }

// JSONURL is the console's JSON download for the form's values.
func (p FormProps) JSONURL() string { return "/reports/cost.json?" + p.query() }

// PreviewProps is the report's preview: the links for the period, and one
// page of the rows (from Offset), the groups off the page summed as Other
// (nil when every group is shown) and the totals (nothing when the form is
// invalid).
type PreviewProps struct {
	Form     FormProps
	Valid    bool
	Rows     []analytics.BreakdownRow
	Offset   int
	PageSize int  // groups per page
	More     bool // groups follow the page
	Other    *analytics.BreakdownRow
	Totals   analytics.BreakdownRow
}

// PrevURL and NextURL are the console's report pages before and after
// this one.
func (p PreviewProps) PrevURL() string { return p.pageURL(p.Offset - p.PageSize) }
func (p PreviewProps) NextURL() string { return p.pageURL(p.Offset + len(p.Rows)) }

func (p PreviewProps) pageURL(offset int) string {
	return "/reports?" + p.Form.query() + "&offset=" + strconv.Itoa(max(offset, 0))
}

// Range describes the groups on the page ("26-50").
func (p PreviewProps) Range() string {
	return strconv.Itoa(p.Offset+1) + "-" + strconv.Itoa(p.Offset+len(p.Rows))
}

// PageProps is the whole reports page.
type PageProps struct {
	Layout  layout.Props
	Preview PreviewProps
}
