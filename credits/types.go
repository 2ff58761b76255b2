package credits

import (
	"slices"
	"time"
)

// PlatformOrgID is the organisation whose sealed credentials are the
// platform credentials (migration 01400 creates it; it has no members).
const PlatformOrgID = "org_platform"

// Kind is a ledger entry's kind, a closed vocabulary.
type Kind string

// Ledger entry kinds.
const (
	KindTopUp      Kind = "topup"      // paid credit (a payment provider's reference makes it idempotent)
	KindGrant      Kind = "grant"      // free credit: an operator's grant, a plan's included monthly credit
	KindDebit      Kind = "debit"      // a request's cost (request id set, one per request)
	KindRefund     Kind = "refund"     // credit given back for a request
	KindAdjustment Kind = "adjustment" // an operator's correction, either sign
)

// Entry is one ledger row. AmountMicros is signed: credit is positive, a
// debit negative.
type Entry struct {
	ID           string
	OrgID        string
	Kind         Kind
	AmountMicros int64
	Actor        string // user id, "gateway", or "plan"
	Reason       string
	RequestID    string // debits and refunds
	Model        string // debits: the model that served the request
	KeyID        string // debits: the rk_ key that sent it
	Reference    string // top-ups and grants: idempotency reference ("" none)
	CreatedAt    time.Time
}

// Account is an organisation's running totals: Balance is the ledger's sum,
// Reserved what held reservations cover.
type Account struct {
	OrgID          string
	BalanceMicros  int64
	ReservedMicros int64
}

// Available is what a new reservation may take.
func (a Account) Available() int64 { return a.BalanceMicros - a.ReservedMicros }

// Reservation is credit held for a call in flight.
type Reservation struct {
	ID           string
	OrgID        string
	RequestID    string
	AmountMicros int64
	CreatedAt    time.Time
}

// BasisPoints scale multipliers and fees: 10000 is 1x (100%).
const BasisPoints = 10000

// Plan is an operator-defined offer. Providers and Models allow platform
// credentials: a call may use one when its provider is listed and, if
// Models is non-empty, its model too.
type Plan struct {
	ID        string
	Name      string
	Providers []string
	Models    []string
	// MultiplierBP multiplies catalog prices (12000: a 20% markup).
	MultiplierBP int64
	// IncludedMonthlyMicros is credit granted at the start of each UTC month.
	IncludedMonthlyMicros int64
	// BYOKFeeBP is a fee on the cost of traffic on the organisation's own
	// credentials (0: none).
	BYOKFeeBP int64
	// Defaults are the rate limits and concurrency cap of the plan's
	// organisations where neither the organisation nor the key sets its own
	// (see Plan.Limits; 0: no default).
	Defaults  Limits
	CreatedAt time.Time
	UpdatedAt time.Time
}

// AllowsPlatform reports whether a call of model through provider may use
// a platform credential under p.
func (p *Plan) AllowsPlatform(provider, model string) bool {
	if p == nil || !slices.Contains(p.Providers, provider) {
		return false
	}
	return len(p.Models) == 0 || slices.Contains(p.Models, model)
}

// ListsProvider reports whether p names provider at all (for some or
// every model).
func (p *Plan) ListsProvider(provider string) bool {
	return p != nil && slices.Contains(p.Providers, provider)
}

// Price is a catalog cost at the plan's prices, rounded up to the micro.
func (p *Plan) Price(costMicros int64) int64 { return scaleUp(costMicros, p.MultiplierBP) }

// Fee is the plan's fee on a BYOK call's catalog cost (0 without one).
func (p *Plan) Fee(costMicros int64) int64 { return scaleUp(costMicros, p.BYOKFeeBP) }

func scaleUp(micros, bp int64) int64 {
	if micros <= 0 || bp <= 0 {
		return 0
	}
	return (micros*bp + BasisPoints - 1) / BasisPoints
}

// Limits are a request's rate limits (its key's requests and tokens per
// minute) and its organisation's cap on requests in flight per replica; 0
// means none set.
type Limits struct {
	RPM, TPM       int
	MaxConcurrency int
}

// MaxLimit bounds a plan's default RPM and TPM; MaxConcurrency bounds its
// default cap (the bound of an organisation's own, billing.MaxOrgConcurrency).
const (
	MaxLimit       = 100_000_000
	MaxConcurrency = 100_000
)

// Limits resolves the limits a request runs under: each value the key (RPM,
// TPM) or the organisation (MaxConcurrency) set itself wins; where it set
// none, the plan's default applies (no plan: none). The organisation's own
// cap never exceeds ConcurrencyCeiling(operatorDefault): an organisation
// may not raise itself above what the operator gives it (a value stored
// before the operator lowered it is clamped).
func (p *Plan) Limits(own Limits, operatorDefault int) Limits {
	if ceil := p.ConcurrencyCeiling(operatorDefault); ceil > 0 && own.MaxConcurrency > ceil {
		own.MaxConcurrency = ceil
	}
	if p == nil {
		return own
	}
	pick := func(own, def int) int {
		if own > 0 {
			return own
		}
		return def
	}
	return Limits{RPM: pick(own.RPM, p.Defaults.RPM), TPM: pick(own.TPM, p.Defaults.TPM),
		MaxConcurrency: pick(own.MaxConcurrency, p.Defaults.MaxConcurrency)}
}

// ConcurrencyCeiling is the most requests in flight per replica an
// organisation on p may set as its own cap: operatorDefault
// (HEDDLE_ORG_CONCURRENCY; 0: no ceiling), or the plan's default cap when
// the operator gave the plan more. A plan's default below it is a default,
// not a ceiling: the organisation may set its own up to operatorDefault.
func (p *Plan) ConcurrencyCeiling(operatorDefault int) int {
	if operatorDefault <= 0 {
		return 0
	}
	if p != nil {
		return max(operatorDefault, p.Defaults.MaxConcurrency)
	}
	return operatorDefault
}

// Operator is a user holding the platform role.
type Operator struct {
	UserID    string
	Email     string
	CreatedBy string
	CreatedAt time.Time
}

// OrgSummary is one organisation as operators see it: its plan and money,
// never its credentials or content.
type OrgSummary struct {
	OrgID, Name, Slug string
	PlanID, PlanName  string // "" without a plan
	BalanceMicros     int64
	ReservedMicros    int64
	// SpentMicros is what its debits took since the start of the period
	// asked for.
	SpentMicros int64
	// LastActivity is when one of its keys was last used (nil: never).
	LastActivity *time.Time
}

// UsageRow is what one model and key cost in debits over a period.
type UsageRow struct {
	Model, KeyID string
	Requests     int
	Micros       int64 // the debits' total, positive
}
