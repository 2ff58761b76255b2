package app

import (
	"context"
	"fmt"

	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/tenancy"
)

// callerLimits is the one place a caller's limits are resolved: the key's
// own RPM and TPM and the organisation's own cap on requests in flight
// (max_concurrency of its budget settings) win; what neither set comes
// from the organisation's plan's defaults (credits.Plan.Limits); without
// a plan, nothing; the organisation's own cap is clamped to orgDefault
// (HEDDLE_ORG_CONCURRENCY, or a plan's higher default cap). The plan is read per request (a change of plan or of
// its defaults applies from the next request); the budget settings come
// from the per-replica cache the guard reads too. A read error fails the
// request closed (503), never an unlimited one.
func callerLimits(ctx context.Context, plans orgPlans, budgets *billing.OrgBudgets, orgID string, key tenancy.Limits, orgDefault int) (gateway.Limits, error) {
	s, err := budgets.Get(ctx, orgID)
	if err != nil {
		return gateway.Limits{}, err
	}
	plan, err := plans.OrgPlan(ctx, orgID)
	if err != nil {
		return gateway.Limits{}, fmt.Errorf("app: plan defaults: %w", err)
	}
	l := plan.Limits(credits.Limits{RPM: key.RPM, TPM: key.TPM, MaxConcurrency: s.MaxConcurrency}, orgDefault)
	return gateway.Limits{RPM: l.RPM, TPM: l.TPM, MaxConcurrency: l.MaxConcurrency,
		DailyBudgetMicros: key.DailyBudgetMicros, MonthlyBudgetMicros: key.MonthlyBudgetMicros, SoftBudgets: key.SoftBudgets}, nil
}

// orgPlans reads an organisation's plan (credits.Service).
type orgPlans interface {
	OrgPlan(ctx context.Context, orgID string) (*credits.Plan, error)
}

// concurrencyCeiling is the most an organisation may set as its own
// max_concurrency (web.BudgetDeps.ConcurrencyCeiling): orgDefault
// (HEDDLE_ORG_CONCURRENCY), or its plan's default cap when higher.
func concurrencyCeiling(plans orgPlans, orgDefault int) func(ctx context.Context, orgID string) (int, error) {
	return func(ctx context.Context, orgID string) (int, error) {
		plan, err := plans.OrgPlan(ctx, orgID)
		if err != nil {
			return 0, fmt.Errorf("app: plan defaults: %w", err)
		}
		return plan.ConcurrencyCeiling(orgDefault), nil
	}
}
