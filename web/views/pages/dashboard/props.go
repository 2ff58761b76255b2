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

// RangeProps is the range picker: the preset in use and, for "custom",
// the dates as typed.
type RangeProps struct {
	Preset   string // 24h, 7d, 30d or custom
	From, To string // YYYY-MM-DD
}

// Presets are the ranges the picker offers as links.
var Presets = []components.PresetLink{
	{Key: "24h", Label: "24 h", URL: "/dashboard?range=24h"},
	{Key: "7d", Label: "7 days", URL: "/dashboard?range=7d"},
	{Key: "30d", Label: "30 days", URL: "/dashboard?range=30d"},
}

// Source is one source of savings: a route kind's requests, spend,
// baseline and savings, and its share of the period's savings.
type Source struct {
	Source         string // routed, pinned, cache, explicit
	Requests       int64
	CostMicros     int64
	BaselineMicros int64
	SavingsMicros  int64
	Share          float64
}

// PageProps is the dashboard.
type PageProps struct {
	Layout   layout.Props
	Range    RangeProps
	Period   string // e.g. "Last 7 days: 2026-11-23 to now (UTC)"
	Baseline string // the deployment's baseline model of "auto" turns
	Summary  analytics.Summary
	Days     []analytics.BreakdownRow // one per day of the period, zero rows included
	Models   []analytics.BreakdownRow
	Routes   []analytics.BreakdownRow
	Failures []analytics.BreakdownRow
	Sources  []Source // savings by source
	Chart    components.ChartProps
	// SourceChart draws spend and savings by source.
	SourceChart components.ChartProps
	Latency     components.SeriesProps // mean latency per day
	Error       string
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

func customClass(cur string) string {
	if cur == "custom" {
		return "button small"
	}
	return "button small secondary"
}

func sourceExplain(source string) string {
	switch source {
	case "routed":
		return "the router picked a cheaper model that is good enough for the prompt"
	case "pinned":
		return "a session stayed on the model it was pinned to"
	case "cache":
		return "answered from the semantic cache: no upstream call, the baseline is what the call would have cost"
	}
	return "the caller named the model; savings only from the baseline's own price difference"
}

// chartsClass lays the per-day charts side by side for a short range and
// one above the other, full width, for a long one.
func (p PageProps) chartsClass() string {
	if len(p.Days) > 10 {
		return "stack"
	}
	return "grid2"
}
