// Package health holds the console's provider health page: per provider
// binding (provider and model) its attempts, success rate, latency
// percentiles and circuit state over a range.
//
// Ring: presentation. No I/O.
package health

import (
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/web/views/components"
	"github.com/heddle-gw/heddle/web/views/layout"
)

// Row is one binding: its attempts in the range and its circuit.
type Row struct {
	analytics.BindingHealth
	// Circuit is the binding's breaker state on this replica: "open",
	// "half_open", "closed", or "" when it has none (no answer since
	// start); with several credentials, the worst of them.
	Circuit  string
	OpenedAt time.Time // when the shown circuit opened (zero if closed)
}

// PageProps is the provider health page.
type PageProps struct {
	Layout layout.Props
	Preset string // 24h, 7d or 30d
	Period string
	Rows   []Row
	Error  string
}

// Presets are the ranges the page offers.
var Presets = []components.PresetLink{
	{Key: "24h", Label: "24 h", URL: "/providers/health?range=24h"},
	{Key: "7d", Label: "7 days", URL: "/providers/health?range=7d"},
	{Key: "30d", Label: "30 days", URL: "/providers/health?range=30d"},
}

func rowID(r Row) string { return r.Provider + "/" + r.Model }

func circuitText(r Row) string {
	switch r.Circuit {
	case "":
		return "no breaker yet"
	case "half_open":
		return "half open (probing)"
	}
	return r.Circuit
}

func openedText(r Row) string {
	if r.OpenedAt.IsZero() {
		return "-"
	}
	return r.OpenedAt.UTC().Format(time.DateTime)
}

func lastFailure(r Row) string {
	if r.LastFailure.IsZero() {
		return "-"
	}
	return r.LastFailure.UTC().Format(time.DateTime)
}

func rateClass(r Row) string {
	switch {
	case r.Served+r.Failed == 0:
		return "num"
	case r.SuccessRate < 0.9:
		return "num neg"
	}
	return "num pos"
}

func rateText(r Row) string {
	if r.Served+r.Failed == 0 {
		return "-"
	}
	return components.Percent(r.SuccessRate)
}
