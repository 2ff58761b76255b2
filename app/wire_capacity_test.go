package app

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/billing/billingtest"
	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/tenancy"
)

// plansOf answers OrgPlan from a map (or with err), and counts reads.
type plansOf struct {
	plans map[string]*credits.Plan
	err   error
	reads int
}

func (p *plansOf) OrgPlan(_ context.Context, orgID string) (*credits.Plan, error) {
	p.reads++
	return p.plans[orgID], p.err
}

// TestCallerLimits: the key's and organisation's own values win, the
// plan's defaults fill the rest, budgets pass through, the plan is read on
// every call (a change applies from the next request) and a plan that
// cannot be read fails closed.
func TestCallerLimits(t *testing.T) {
	ctx := context.Background()
	store := billingtest.NewMemory(time.Now)
	budgets := billing.NewOrgBudgets(store, billing.OrgBudgetsConfig{})
	own := billing.NoOrgBudgets
	own.MaxConcurrency = 7
	greedy := billing.NoOrgBudgets
	greedy.MaxConcurrency = 5000
	for org, s := range map[string]billing.OrgBudgetSettings{"org_own": own, "org_greedy": greedy, "org_greedy_none": greedy} {
		if _, err := budgets.Set(ctx, org, s); err != nil {
			t.Fatal(err)
		}
	}
	plan := &credits.Plan{ID: "p", Defaults: credits.Limits{RPM: 60, TPM: 9000, MaxConcurrency: 10}}
	plans := &plansOf{plans: map[string]*credits.Plan{"org_plan": plan, "org_own": plan, "org_greedy": plan}}
	key := tenancy.Limits{TPM: 50, DailyBudgetMicros: 11, MonthlyBudgetMicros: 22, SoftBudgets: true}
	for _, tt := range []struct {
		name, org string
		want      gateway.Limits
	}{
		{name: "plan defaults fill what the key and organisation left unset", org: "org_plan",
			want: gateway.Limits{RPM: 60, TPM: 50, MaxConcurrency: 10, DailyBudgetMicros: 11, MonthlyBudgetMicros: 22, SoftBudgets: true}},
		{name: "the organisation's own cap wins", org: "org_own",
			want: gateway.Limits{RPM: 60, TPM: 50, MaxConcurrency: 7, DailyBudgetMicros: 11, MonthlyBudgetMicros: 22, SoftBudgets: true}},
		{name: "an own cap above HEDDLE_ORG_CONCURRENCY is clamped to it", org: "org_greedy",
			want: gateway.Limits{RPM: 60, TPM: 50, MaxConcurrency: 1024, DailyBudgetMicros: 11, MonthlyBudgetMicros: 22, SoftBudgets: true}},
		{name: "no plan: the same clamp", org: "org_greedy_none",
			want: gateway.Limits{TPM: 50, MaxConcurrency: 1024, DailyBudgetMicros: 11, MonthlyBudgetMicros: 22, SoftBudgets: true}},
		{name: "no plan: the key's own only", org: "org_none",
			want: gateway.Limits{TPM: 50, DailyBudgetMicros: 11, MonthlyBudgetMicros: 22, SoftBudgets: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := callerLimits(ctx, plans, budgets, tt.org, key, 1024)
			if err != nil || got != tt.want {
				t.Fatalf("callerLimits = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
	reads := plans.reads
	plan.Defaults.RPM = 5 // the operator changed the plan
	if got, _ := callerLimits(ctx, plans, budgets, "org_plan", key, 1024); got.RPM != 5 || plans.reads != reads+1 {
		t.Errorf("after a plan change: rpm %d (reads %d, were %d), want 5 from the next call", got.RPM, plans.reads, reads)
	}
	plans.err = credits.ErrUnavailable
	if _, err := callerLimits(ctx, plans, budgets, "org_plan", key, 1024); !errors.Is(err, credits.ErrUnavailable) || errors.Is(err, gateway.ErrUnauthorized) {
		t.Errorf("a plan read error: %v, want credits.ErrUnavailable (503), not unauthorized", err)
	}
}
