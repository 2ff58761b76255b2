package credits

import (
	"context"
	"errors"
	"testing"
)

func TestPlanPricing(t *testing.T) {
	p := &Plan{Providers: []string{"openai"}, Models: []string{"gpt-5"}, MultiplierBP: 15000, BYOKFeeBP: 250}
	for _, tt := range []struct {
		name       string
		cost       int64
		price, fee int64
	}{
		{name: "exact", cost: 1000, price: 1500, fee: 25},
		{name: "rounded up to the micro", cost: 1, price: 2, fee: 1},
		{name: "nothing costs nothing", cost: 0, price: 0, fee: 0},
		{name: "a negative cost is never a credit", cost: -5, price: 0, fee: 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Price(tt.cost); got != tt.price {
				t.Errorf("Price(%d) = %d, want %d", tt.cost, got, tt.price)
			}
			if got := p.Fee(tt.cost); got != tt.fee {
				t.Errorf("Fee(%d) = %d, want %d", tt.cost, got, tt.fee)
			}
		})
	}
	if !p.AllowsPlatform("openai", "gpt-5") || p.AllowsPlatform("openai", "gpt-5-mini") || p.AllowsPlatform("anthropic", "gpt-5") {
		t.Error("AllowsPlatform ignores the plan's providers or models")
	}
	if !p.ListsProvider("openai") || p.ListsProvider("google") || (*Plan)(nil).AllowsPlatform("openai", "gpt-5") {
		t.Error("ListsProvider or a nil plan")
	}
	if (&Plan{Providers: []string{"openai"}}).AllowsPlatform("openai", "anything") != true {
		t.Error("a plan without models allows every model of its providers")
	}
}

// TestPlanLimits: what the key or organisation set wins, the plan's
// default fills what it left at 0, no plan adds nothing.
func TestPlanLimits(t *testing.T) {
	plan := &Plan{Defaults: Limits{RPM: 60, TPM: 5000, MaxConcurrency: 4}}
	for _, tt := range []struct {
		name      string
		plan      *Plan
		own, want Limits
	}{
		{name: "nothing set: every default", plan: plan, own: Limits{}, want: Limits{RPM: 60, TPM: 5000, MaxConcurrency: 4}},
		{name: "own values win", plan: plan, own: Limits{RPM: 5, TPM: 7, MaxConcurrency: 3}, want: Limits{RPM: 5, TPM: 7, MaxConcurrency: 3}},
		{name: "an own cap above the plan's default, within the operator's", plan: plan, own: Limits{MaxConcurrency: 9}, want: Limits{RPM: 60, TPM: 5000, MaxConcurrency: 9}},
		{name: "an own cap above the operator's default is clamped to it", plan: plan, own: Limits{MaxConcurrency: 5000}, want: Limits{RPM: 60, TPM: 5000, MaxConcurrency: 1024}},
		{name: "a plan granting more than the operator's default raises the ceiling", plan: &Plan{Defaults: Limits{MaxConcurrency: 2048}},
			own: Limits{MaxConcurrency: 5000}, want: Limits{MaxConcurrency: 2048}},
		{name: "no plan: an own cap above the operator's default is clamped to it", plan: nil, own: Limits{MaxConcurrency: 5000}, want: Limits{MaxConcurrency: 1024}},
		{name: "each value on its own", plan: plan, own: Limits{TPM: 7}, want: Limits{RPM: 60, TPM: 7, MaxConcurrency: 4}},
		{name: "a plan without defaults", plan: &Plan{}, own: Limits{RPM: 3}, want: Limits{RPM: 3}},
		{name: "no plan", plan: nil, own: Limits{MaxConcurrency: 2}, want: Limits{MaxConcurrency: 2}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.plan.Limits(tt.own, 1024); got != tt.want {
				t.Fatalf("Limits(%+v) = %+v, want %+v", tt.own, got, tt.want)
			}
		})
	}
}

// TestInputValidation: bad plans and credit entries are refused before
// the store is reached (a nil store would panic).
func TestInputValidation(t *testing.T) {
	s := NewService(nil, Config{})
	ctx := context.Background()
	known := func(p string) bool { return p == "openai" }
	for _, tt := range []struct {
		name  string
		in    PlanInput
		field string
	}{
		{name: "no name", in: PlanInput{MultiplierBP: 10000}, field: "name"},
		{name: "zero multiplier", in: PlanInput{Name: "a"}, field: "multiplier_bp"},
		{name: "negative included credit", in: PlanInput{Name: "a", MultiplierBP: 1, IncludedMonthlyMicros: -1}, field: "included_monthly_micros"},
		{name: "fee over 100%", in: PlanInput{Name: "a", MultiplierBP: 1, BYOKFeeBP: 10001}, field: "byok_fee_bp"},
		{name: "unknown provider", in: PlanInput{Name: "a", MultiplierBP: 1, Providers: []string{"nope"}}, field: "providers"},
		{name: "negative default rpm", in: PlanInput{Name: "a", MultiplierBP: 1, Defaults: Limits{RPM: -1}}, field: "default_rpm"},
		{name: "default tpm too big", in: PlanInput{Name: "a", MultiplierBP: 1, Defaults: Limits{TPM: MaxLimit + 1}}, field: "default_tpm"},
		{name: "default concurrency too big", in: PlanInput{Name: "a", MultiplierBP: 1, Defaults: Limits{MaxConcurrency: MaxConcurrency + 1}}, field: "default_max_concurrency"},
	} {
		t.Run("plan "+tt.name, func(t *testing.T) {
			var fe *FieldError
			if _, err := s.SavePlan(ctx, tt.in, known); !errors.As(err, &fe) || fe.Field != tt.field || !errors.Is(err, ErrInvalid) {
				t.Fatalf("err %v, want a field error on %s", err, tt.field)
			}
		})
	}
	for _, tt := range []struct {
		name  string
		in    CreditInput
		field string
	}{
		{name: "negative grant", in: CreditInput{Kind: KindGrant, AmountMicros: -1}, field: "amount_micros"},
		{name: "top-up without reference", in: CreditInput{Kind: KindTopUp, AmountMicros: 5}, field: "reference"},
		{name: "zero adjustment", in: CreditInput{Kind: KindAdjustment}, field: "amount_micros"},
		{name: "adjustment without reason", in: CreditInput{Kind: KindAdjustment, AmountMicros: -5}, field: "reason"},
		{name: "a debit by hand", in: CreditInput{Kind: KindDebit, AmountMicros: 5}, field: "kind"},
	} {
		t.Run("credit "+tt.name, func(t *testing.T) {
			var fe *FieldError
			if _, _, err := s.Credit(ctx, tt.in); !errors.As(err, &fe) || fe.Field != tt.field {
				t.Fatalf("err %v, want a field error on %s", err, tt.field)
			}
		})
	}
}
