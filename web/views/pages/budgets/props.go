// Package budgets holds the console's budgets page: the organisation's
// daily and monthly budgets with what was spent so far, the form that sets
// them, and every key's budgets and spending.
//
// Ring: presentation. No I/O.
package budgets

import "github.com/heddle-gw/heddle/web/views/layout"

// Usage is one budget (organisation or key, day or month) and its spending
// in the current period, formatted.
type Usage struct {
	Period   string // "day" or "month", for test ids
	Limit    string // e.g. "$10.00"; "" means no budget
	Mode     string // "hard" or "soft"
	Spent    string
	Used     string // fraction of the limit spent, e.g. "45.0%"; "" without a limit
	Meter    string // the same fraction in [0, 1] for the bar, e.g. "0.45"
	Over     bool   // spent is at or over the limit
	ResetsAt string
}

// KeyRow is one key's budgets.
type KeyRow struct {
	ID, Name, Prefix, Status string
	Daily, Monthly           Usage
}

// FormProps is the organisation budgets form with the values as typed and
// their errors. Amounts are in US dollars.
type FormProps struct {
	CSRF        string
	Daily       string // "" means no daily budget
	DailyMode   string // hard or soft
	Monthly     string
	MonthlyMode string
	// MaxConcurrency is the organisation's cap on requests in flight per
	// replica; "" means the operator's default.
	MaxConcurrency string
	CanEdit        bool // admins and owners
	Updated        string
	Saved          bool
	Error          string
	Fields         map[string]string // daily_budget, daily_mode, monthly_budget, monthly_mode, max_concurrency
}

// ContentProps is everything below the title; htmx swaps it after a save.
type ContentProps struct {
	Daily, Monthly Usage
	Form           FormProps
	Keys           []KeyRow
}

// PageProps is the whole budgets page.
type PageProps struct {
	Layout  layout.Props
	Content ContentProps
}
