package billing

import (
	"errors"
	"fmt"
	"time"
)

// Sentinel errors. Callers compare with errors.Is; the edges map them to HTTP
// (ErrBudgetExceeded is 402 billing.budget_exceeded, ErrBudgetUnavailable 503).
var (
	// ErrBudgetExceeded means a hard budget is spent; it is wrapped by
	// *BudgetError.
	ErrBudgetExceeded = errors.New("billing: budget exceeded")
	// ErrBudgetUnavailable means spending could not be read or written, or a
	// budget is malformed. Budget checks fail closed with it.
	ErrBudgetUnavailable = errors.New("billing: budget state unavailable")
	// ErrInvalidBudget is a budget with an empty scope or an unknown period;
	// Check wraps it together with ErrBudgetUnavailable.
	ErrInvalidBudget = errors.New("billing: invalid budget")
)

// BudgetError is a hard budget that is spent. It unwraps to
// ErrBudgetExceeded.
type BudgetError struct {
	Scope       string
	Period      Period
	LimitMicros int64
	SpentMicros int64
	// ResetAt is the end of the budget's period (UTC), when spending starts
	// again from zero.
	ResetAt time.Time
}

// Error names the scope and period; it carries no prompt or key material.
func (e *BudgetError) Error() string {
	return fmt.Sprintf("billing: %s budget of %s exceeded (%d of %d micro-dollars, resets %s)",
		e.Period, e.Scope, e.SpentMicros, e.LimitMicros, e.ResetAt.UTC().Format(time.RFC3339))
}

// Unwrap returns ErrBudgetExceeded.
func (e *BudgetError) Unwrap() error { return ErrBudgetExceeded }
