// Package billing holds the console's Billing page: the organisation's
// prepaid balance, reservations in flight, its plan and prices, the ledger
// with paging and the monthly statements.
//
// Ring: presentation. No I/O.
package billing

import "github.com/heddle-gw/heddle/web/views/layout"

// PageProps is the whole page.
type PageProps struct {
	Layout  layout.Props
	Content ContentProps
}

// ContentProps is everything below the title.
type ContentProps struct {
	Balance, Reserved, Available string
	Low                          bool // the balance is at or below zero
	Plan                         *Plan
	Reservations                 []Reservation
	Ledger                       LedgerProps
	Months                       []string // statement months, newest first ("2026-12")
	Usage                        []Usage  // this month's debits by model and key
}

// Usage is one model and key's debits this month.
type Usage struct {
	Model, Key, Requests, Amount string
}

// Plan is the organisation's plan and its prices per million tokens.
type Plan struct {
	Name, Multiplier, Included, BYOKFee string
	Prices                              []Price
}

// Price is one model at the plan's prices.
type Price struct {
	Model, Input, Output, CacheRead string
}

// Reservation is credit held for a call in flight.
type Reservation struct {
	RequestID, Amount, Since string
}

// LedgerProps is one page of the ledger; Next is the cursor of the older
// page ("" on the last).
type LedgerProps struct {
	Entries []Entry
	Next    string
}

// Entry is one ledger entry.
type Entry struct {
	ID, Time, Kind, Amount, Reason, RequestID, Actor string
	Negative                                         bool
}
