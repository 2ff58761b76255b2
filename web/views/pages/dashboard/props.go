// Package dashboard holds the console's dashboard: the last days' summary
// (requests, spend, baseline, savings, cache hits and rate, error rate,
// latency percentiles), charts of spend and savings and of mean latency per
// day, and breakdowns by day, model, route kind and failure reason.
//
// Ring: presentation. No I/O.
package dashboard

import (
	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/web/views/components"
	"github.com/heddle-gw/heddle/web/views/layout"
)

// PageProps is the dashboard.
type PageProps struct {
	Layout   layout.Props
	Period   string // e.g. "2026-11-23 to now (UTC)"
	Summary  analytics.Summary
	Days     []analytics.BreakdownRow // one per day of the period, zero rows included
	Models   []analytics.BreakdownRow
	Routes   []analytics.BreakdownRow
	Failures []analytics.BreakdownRow
	Chart    components.ChartProps
	Latency  components.SeriesProps // mean latency per day
	Error    string
}

// countShare is n and its share of of, e.g. "3 (25.0%)".
func countShare(n, of int64) string {
	return components.Int(n) + " (" + rate(n, of) + ")"
}

func rate(n, of int64) string {
	if of <= 0 {
		return components.Percent(0)
	}
	return components.Percent(float64(n) / float64(of))
}
