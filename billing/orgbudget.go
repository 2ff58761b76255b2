package billing

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Errors of organisation budget settings.
var (
	// ErrInvalidBudgetSettings means organisation budget settings are wrong;
	// it is wrapped by *FieldError naming the field.
	ErrInvalidBudgetSettings = errors.New("billing: invalid budget settings")
)

// FieldError names the settings field that is wrong ("daily_mode") and
// unwraps to ErrInvalidBudgetSettings. Its message is written for the
// tenant admin.
type FieldError struct {
	Field   string
	Message string
}

// Error returns the field and the message.
func (e *FieldError) Error() string { return e.Field + " " + e.Message }

// Public returns the message shown to callers (it holds no secret).
func (e *FieldError) Public() string { return e.Error() }

// Unwrap returns ErrInvalidBudgetSettings.
func (e *FieldError) Unwrap() error { return ErrInvalidBudgetSettings }

// MaxOrgConcurrency bounds OrgBudgetSettings.MaxConcurrency.
const MaxOrgConcurrency = 100000

// Mode says what happens once a budget is spent.
type Mode string

// Budget modes.
const (
	Hard Mode = "hard" // requests are refused (402)
	Soft Mode = "soft" // requests go on; the excess is logged as an alert
)

// OrgLimit is an organisation's budget for one period.
type OrgLimit struct {
	// LimitMicros is the cap in micro-dollars; 0 means no budget.
	LimitMicros int64
	Mode        Mode
}

// OrgBudgetSettings are an organisation's daily and monthly budgets (SPEC
// §9). Spending counts every key of the organisation. The zero value means
// no budget; Validate refuses it (modes must be set), NoOrgBudgets is the
// valid "none".
type OrgBudgetSettings struct {
	Daily, Monthly OrgLimit
	// MaxConcurrency caps the organisation's requests in flight on each
	// replica; 0 keeps the operator's default (HEDDLE_ORG_CONCURRENCY). It
	// is stored and set with the budgets (one limits form for an admin).
	MaxConcurrency int
	// UpdatedAt is when the settings were last stored; zero when never.
	UpdatedAt time.Time
}

// NoOrgBudgets is an organisation without budgets: what the store returns
// for one that never set any.
var NoOrgBudgets = OrgBudgetSettings{Daily: OrgLimit{Mode: Hard}, Monthly: OrgLimit{Mode: Hard}}

// Validate checks both limits (0 or more) and modes (hard or soft). Errors
// are *FieldError naming the field as the admin API spells it:
// daily_limit_micros, daily_mode, monthly_limit_micros, monthly_mode,
// max_concurrency.
func (s OrgBudgetSettings) Validate() error {
	if s.MaxConcurrency < 0 || s.MaxConcurrency > MaxOrgConcurrency {
		return &FieldError{Field: "max_concurrency", Message: fmt.Sprintf("must be 0 (the operator's default) to %d", MaxOrgConcurrency)}
	}
	for _, l := range []struct {
		name  string
		limit OrgLimit
	}{{"daily", s.Daily}, {"monthly", s.Monthly}} {
		if l.limit.LimitMicros < 0 {
			return &FieldError{Field: l.name + "_limit_micros", Message: "must be 0 (no budget) or more"}
		}
		if l.limit.Mode != Hard && l.limit.Mode != Soft {
			return &FieldError{Field: l.name + "_mode", Message: fmt.Sprintf("must be %q or %q", Hard, Soft)}
		}
	}
	return nil
}

// Budgets returns the settings as the organisation's day and month budgets
// (in that order, a zero limit included: Check ignores it, Usage shows it).
func (s OrgBudgetSettings) Budgets(orgID string) []Budget {
	return []Budget{
		{Scope: OrgScope(orgID), Period: Day, LimitMicros: s.Daily.LimitMicros, Hard: s.Daily.Mode != Soft},
		{Scope: OrgScope(orgID), Period: Month, LimitMicros: s.Monthly.LimitMicros, Hard: s.Monthly.Mode != Soft},
	}
}

// TurnScopes are the budgets (without limits) whose spending every served
// turn adds to: its key's and its organisation's, per day and per month.
// Recording all four whether or not a limit is set keeps the counters right
// when an admin sets a budget in the middle of a period.
func TurnScopes(orgID, keyID string) []Budget {
	return []Budget{
		{Scope: KeyScope(keyID), Period: Day}, {Scope: KeyScope(keyID), Period: Month},
		{Scope: OrgScope(orgID), Period: Day}, {Scope: OrgScope(orgID), Period: Month},
	}
}

// OrgBudgetStore keeps organisations' budget settings. Implementations are
// safe for concurrent use and scope every query by orgID.
type OrgBudgetStore interface {
	// GetOrgBudgets returns orgID's settings: NoOrgBudgets and a nil error
	// when it has none. It blocks on the store.
	GetOrgBudgets(ctx context.Context, orgID string) (OrgBudgetSettings, error)
	// PutOrgBudgets replaces orgID's settings (UpdatedAt is set by the
	// store when zero). It does not validate: callers run Validate first.
	PutOrgBudgets(ctx context.Context, orgID string, s OrgBudgetSettings) error
}
