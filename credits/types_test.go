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
