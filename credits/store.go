package credits

import (
	"context"
	"time"
)

// Store keeps operators, plans and the ledger in the database every
// replica shares. Each method is one transaction; every organisation-facing
// method is filtered by orgID. Errors other than the sentinels named wrap
// ErrUnavailable.
type Store interface {
	OperatorStore
	PlanStore
	LedgerStore
}

// OperatorStore keeps the platform role.
type OperatorStore interface {
	// AddOperator makes userID an operator (idempotent).
	AddOperator(ctx context.Context, userID, createdBy string, at time.Time) error
	// IsOperator reports whether userID is an operator.
	IsOperator(ctx context.Context, userID string) (bool, error)
	// Operators lists operators with their emails.
	Operators(ctx context.Context) ([]Operator, error)
}

// PlanStore keeps plans and which plan each organisation has.
type PlanStore interface {
	// SavePlan creates or replaces p (by ID); a name taken by another plan
	// is ErrConflict.
	SavePlan(ctx context.Context, p *Plan) error
	// Plans lists every plan by name.
	Plans(ctx context.Context) ([]Plan, error)
	// PlanByID returns a plan or ErrNotFound.
	PlanByID(ctx context.Context, id string) (*Plan, error)
	// SetOrgPlan gives orgID the plan planID (the caller checked both exist).
	SetOrgPlan(ctx context.Context, orgID, planID string, at time.Time) error
	// OrgPlan returns orgID's plan, or nil and no error when it has none.
	OrgPlan(ctx context.Context, orgID string) (*Plan, error)
}

// LedgerStore keeps the ledger, the running balance and reservations.
type LedgerStore interface {
	// Append adds e and moves the balance by e.AmountMicros in one
	// transaction. An entry whose (org, Reference) or, for a debit,
	// (org, RequestID) is already in the ledger is not added again:
	// Append returns the stored entry and added=false.
	Append(ctx context.Context, e *Entry) (stored *Entry, added bool, err error)
	// Reserve holds r.AmountMicros of r.OrgID's credit when its balance less
	// what is reserved covers it, else ErrInsufficientCredits. The check
	// and the hold are one conditional update, so concurrent reservations
	// on any replica never hold more than the balance.
	Reserve(ctx context.Context, r *Reservation) error
	// Settle ends reservation id of orgID by appending debit (its amount
	// negative or 0; 0 appends nothing) and releasing the hold, in one
	// transaction. A reservation already released as stale still gets its
	// debit; the ledger keeps one debit per request, so a second
	// settlement appends nothing.
	Settle(ctx context.Context, orgID, id string, debit *Entry) error
	// Release ends reservation id of orgID without a debit (ErrNotFound
	// when it was already ended).
	Release(ctx context.Context, orgID, id string) error
	// Account returns orgID's totals (zero for an organisation without
	// ledger entries).
	Account(ctx context.Context, orgID string) (Account, error)
	// Entries returns up to limit of orgID's entries in [from, to), newest
	// first, older than the cursor entry before (by time, then id; ""
	// starts at the newest).
	Entries(ctx context.Context, orgID string, q EntryQuery) ([]Entry, error)
	// StaleReservations lists every organisation's reservations created
	// before t (holds whose replica never settled them).
	StaleReservations(ctx context.Context, before time.Time) ([]Reservation, error)
	// StaleDebits lists every organisation's debits with reason
	// StaleReason, newest first (by id), each with its organisation's name
	// and its refund (the refund entry of reference
	// StaleRefundReference(id), if any).
	StaleDebits(ctx context.Context, q StaleQuery) ([]StaleDebit, error)
	// Reservations lists orgID's held reservations, oldest first.
	Reservations(ctx context.Context, orgID string) ([]Reservation, error)
	// Usage groups orgID's debits in [from, to) by model and key, dearest
	// first.
	Usage(ctx context.Context, orgID string, from, to time.Time) ([]UsageRow, error)
	// BalanceAt is the sum of orgID's entries created before t.
	BalanceAt(ctx context.Context, orgID string, t time.Time) (int64, error)
	// OrgSummaries lists every organisation (the platform's own excepted)
	// with its plan, totals, debits since since and last key use.
	OrgSummaries(ctx context.Context, since time.Time) ([]OrgSummary, error)
}

// EntryQuery selects ledger entries.
type EntryQuery struct {
	From, To time.Time // zero: unbounded
	Before   string    // cursor: an entry id; "" from the newest
	Limit    int       // 0: DefaultPage
	Oldest   bool      // oldest first (statements) instead of newest first
}

// DefaultPage is the ledger's page size when a query names none.
const DefaultPage = 50
