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
	// Presets are quick periods ending today: label and from date.
	Presets [][2]string
	Error   string
	Fields  map[string]string
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
	// KeyNames names keys by id for the key grouping ("name (rk_prefix)").
	KeyNames map[string]string
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

// label is how a row's group value shows: a key by its name, an empty tag
// as "(untagged)", any other empty value as "-".
func (p PreviewProps) label(key string) string {
	switch {
	case p.Form.Group == "key" && p.KeyNames[key] != "":
		return p.KeyNames[key]
	case p.Form.Group == "tag" && key == "":
		return "(untagged)"
	case key == "":
		return "-"
	}
	return key
}

// presetURL is the report for the preset's period, grouped as the form is.
func (p FormProps) presetURL(from string) string {
	return "/reports?" + url.Values{"from": {from}, "to": {p.To}, "group": {p.Group}}.Encode()
}

// PageProps is the whole reports page.
type PageProps struct {
	Layout  layout.Props
	Preview PreviewProps
}
