// Package reports holds the console's cost report page: the period and
// grouping form, the CSV and JSON download links and a preview of the rows.
//
// Ring: presentation. No I/O.
package reports

import (
	"net/url"

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

// PreviewProps is the report's preview: the links for the period, and the
// rows and totals (nothing when the form is invalid).
type PreviewProps struct {
	Form   FormProps
	Valid  bool
	Rows   []analytics.BreakdownRow
	Totals analytics.BreakdownRow
}

// PageProps is the whole reports page.
type PageProps struct {
	Layout  layout.Props
	Preview PreviewProps
}
