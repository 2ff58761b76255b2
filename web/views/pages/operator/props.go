// Package operator holds the platform operator's console page:
// organisations with their plan, balance, spend and last activity (set a
// plan, record top-ups, grants and adjustments), plans, and the platform
// credentials (add, test, delete; never shown), and the stale-hold debits
// the janitor took (refund them).
//
// Ring: presentation. No I/O.
package operator

import "github.com/heddle-gw/heddle/web/views/layout"

// PageProps is the whole page.
type PageProps struct {
	Layout  layout.Props
	Content ContentProps
}

// ContentProps is everything below the title (htmx swaps it after a post).
type ContentProps struct {
	CSRF        string
	Error       string // a refused post's message
	Notice      string // a post's outcome
	Orgs        []Org
	Plans       []Plan
	Credentials []Credential
	// Stale are the latest stale-hold debits (StaleMore: there are older).
	Stale     []StaleDebit
	StaleMore bool
}

// StaleDebit is one debit of a hold charged its whole reservation because
// its call's outcome was never recorded. Refund is the refund recorded
// against it ("" none yet: the row offers the refund form, RefundUSD the
// whole debited amount).
type StaleDebit struct {
	ID, OrgID, OrgName, Amount, Time, RequestID string
	Refund, RefundTime, RefundUSD               string
}

// Org is one organisation's row.
type Org struct {
	ID, Name, PlanID, PlanName, Balance, Reserved, Spent, LastActivity string
}

// Plan is one plan's row; Defaults are its default limits ("60 rpm, 4 in
// flight", or "none").
type Plan struct {
	ID, Name, Providers, Models, Multiplier, Included, BYOKFee, Defaults string
}

// Credential is one platform credential (provider, label, last four).
type Credential struct {
	ID, Provider, Label, BaseURL, LastFour, Created string
	Test                                            string // "ok", a failure message, or ""
	TestOK                                          bool
}
