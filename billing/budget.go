package billing

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Period is the span a budget covers, aligned to UTC.
type Period string

// Budget periods.
const (
	Day   Period = "day"   // a UTC calendar day
	Month Period = "month" // a UTC calendar month
)

// Start returns the beginning (UTC) of the period that contains now.
func (p Period) Start(now time.Time) time.Time {
	u := now.UTC()
	if p == Month {
		return time.Date(u.Year(), u.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	return time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC)
}

// End returns the end (UTC, exclusive) of the period that contains now.
func (p Period) End(now time.Time) time.Time {
	if p == Month {
		return p.Start(now).AddDate(0, 1, 0)
	}
	return p.Start(now).AddDate(0, 0, 1)
}

func (p Period) valid() bool { return p == Day || p == Month }

// OrgScope is the budget scope of an organisation.
func OrgScope(orgID string) string { return "org:" + orgID }

// KeyScope is the budget scope of an rk_ key.
func KeyScope(keyID string) string { return "key:" + keyID }

// Budget caps spending of a scope over a period. A hard budget blocks
// requests once spent (402); a soft one is only reported.
type Budget struct {
	Scope       string // OrgScope or KeyScope
	Period      Period
	LimitMicros int64 // zero or less means no limit: the budget is ignored
	Hard        bool
}

// KeyBudgets returns a key's daily and monthly budgets (from
// tenancy.Limits), both hard or both soft; a zero amount adds no budget.
func KeyBudgets(keyID string, dailyMicros, monthlyMicros int64, hard bool) []Budget {
	var out []Budget
	if dailyMicros > 0 {
		out = append(out, Budget{Scope: KeyScope(keyID), Period: Day, LimitMicros: dailyMicros, Hard: hard})
	}
	if monthlyMicros > 0 {
		out = append(out, Budget{Scope: KeyScope(keyID), Period: Month, LimitMicros: monthlyMicros, Hard: hard})
	}
	return out
}

// spendKey is the scope under which a budget's spending is stored: the
// period is part of it, so a day and a month that start at the same instant
// (the 1st) never share a counter.
func (b Budget) spendKey() string { return b.Scope + "/" + string(b.Period) }

func (b Budget) validate() error {
	if b.Scope == "" {
		return fmt.Errorf("%w: empty scope", ErrInvalidBudget)
	}
	if !b.Period.valid() {
		return fmt.Errorf("%w: unknown period %q for %s", ErrInvalidBudget, b.Period, b.Scope)
	}
	return nil
}

// SpendStore keeps the micro-dollars spent per scope and period. Both
// methods block on the store. The scope given is a budget's scope followed by
// "/" and its period ("key:k1/day"); periodStart is the period's UTC start.
type SpendStore interface {
	// Spent returns what was spent; a scope never written is 0 and no error.
	Spent(ctx context.Context, scope string, periodStart time.Time) (int64, error)
	// Add increments the spending atomically: concurrent Adds from any number
	// of replicas must all count.
	Add(ctx context.Context, scope string, periodStart time.Time, micros int64) error
}

// BudgetsConfig configures Budgets.
type BudgetsConfig struct {
	// Timeout bounds each store call; zero means 2 s. A check that times out
	// fails closed.
	Timeout time.Duration
}

// BudgetStatus is one budget's spending at the time of a check.
type BudgetStatus struct {
	Budget      Budget
	SpentMicros int64
	ResetAt     time.Time
}

// Verdict is the outcome of a check that did not block.
type Verdict struct {
	// Checked holds every budget with a limit, in the order given.
	Checked []BudgetStatus
	// SoftExceeded holds the soft budgets at or over their limit, for an
	// alert log line or metric; they do not block.
	SoftExceeded []BudgetStatus
}

// Budgets checks spending against budgets before a request and records the
// cost after it. It keeps no cache of its own: every check reads the store,
// which in production is a SpendBuffer (replica-local counters reconciled
// with the database every sync interval). A hard budget then overshoots by
// the cost of requests already in flight when it was reached, plus what
// other replicas admit until they read it back (within two sync intervals).
// Safe for concurrent use.
type Budgets struct {
	store   SpendStore
	timeout time.Duration
	// inMemory is set when store is a SpendBuffer, whose Add never blocks:
	// Record then needs no deadline (a context and timer per budget).
	inMemory bool
}

// NewBudgets returns a Budgets service over store.
func NewBudgets(store SpendStore, cfg BudgetsConfig) *Budgets {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 2 * time.Second
	}
	_, inMemory := store.(*SpendBuffer)
	return &Budgets{store: store, timeout: cfg.Timeout, inMemory: inMemory}
}

// Check reads the spending of every budget with a limit. The first hard
// budget (in the order given) that is at or over its limit is returned as a
// *BudgetError (errors.Is ErrBudgetExceeded). Any store failure or malformed
// budget fails closed with an error wrapping ErrBudgetUnavailable. Soft
// budgets over their limit are listed in the Verdict and never block.
func (b *Budgets) Check(ctx context.Context, budgets []Budget, now time.Time) (Verdict, error) {
	var v Verdict
	var exceeded *BudgetError
	for _, bg := range budgets {
		if bg.LimitMicros <= 0 {
			continue
		}
		if err := bg.validate(); err != nil {
			return Verdict{}, fmt.Errorf("%w: %w", ErrBudgetUnavailable, err)
		}
		spent, err := b.spent(ctx, bg, now)
		if err != nil {
			return Verdict{}, err
		}
		st := BudgetStatus{Budget: bg, SpentMicros: spent, ResetAt: bg.Period.End(now)}
		v.Checked = append(v.Checked, st)
		if spent < bg.LimitMicros {
			continue
		}
		if !bg.Hard {
			v.SoftExceeded = append(v.SoftExceeded, st)
		} else if exceeded == nil {
			exceeded = &BudgetError{Scope: bg.Scope, Period: bg.Period, LimitMicros: bg.LimitMicros,
				SpentMicros: spent, ResetAt: st.ResetAt}
		}
	}
	if exceeded != nil {
		return v, exceeded
	}
	return v, nil
}

func (b *Budgets) spent(ctx context.Context, bg Budget, now time.Time) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	spent, err := b.store.Spent(ctx, bg.spendKey(), bg.Period.Start(now))
	if err != nil {
		return 0, fmt.Errorf("%w: reading %s %s spend: %w", ErrBudgetUnavailable, bg.Scope, bg.Period, err)
	}
	return spent, nil
}

// Record adds micros to the current period of every budget's scope (once per
// scope and period, even when several budgets share them, and whether or
// not the budget has a limit). Call it after the request, in the background
// with context.WithoutCancel. A zero or negative cost records nothing.
// Failures are joined and wrap ErrBudgetUnavailable.
func (b *Budgets) Record(ctx context.Context, budgets []Budget, micros int64, now time.Time) error {
	if micros <= 0 {
		return nil
	}
	seen := make(map[string]bool, len(budgets))
	var errs []error
	for _, bg := range budgets {
		if err := bg.validate(); err != nil {
			errs = append(errs, fmt.Errorf("%w: %w", ErrBudgetUnavailable, err))
			continue
		}
		key := bg.spendKey()
		if seen[key] {
			continue
		}
		seen[key] = true
		if err := b.add(ctx, key, bg.Period.Start(now), micros); err != nil {
			errs = append(errs, fmt.Errorf("%w: recording %s %s spend: %w", ErrBudgetUnavailable, bg.Scope, bg.Period, err))
		}
	}
	return errors.Join(errs...)
}

func (b *Budgets) add(ctx context.Context, key string, start time.Time, micros int64) error {
	if b.inMemory {
		return b.store.Add(ctx, key, start, micros)
	}
	ctx, cancel := context.WithTimeout(ctx, b.timeout)
	defer cancel()
	return b.store.Add(ctx, key, start, micros)
}

// Usage reads the spending of every budget given, with or without a limit,
// in order (for the admin surfaces; Check is the pre-check). A malformed
// budget or a store failure returns an error wrapping ErrBudgetUnavailable.
func (b *Budgets) Usage(ctx context.Context, budgets []Budget, now time.Time) ([]BudgetStatus, error) {
	out := make([]BudgetStatus, 0, len(budgets))
	for _, bg := range budgets {
		if err := bg.validate(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBudgetUnavailable, err)
		}
		spent, err := b.spent(ctx, bg, now)
		if err != nil {
			return nil, err
		}
		out = append(out, BudgetStatus{Budget: bg, SpentMicros: spent, ResetAt: bg.Period.End(now)})
	}
	return out, nil
}
