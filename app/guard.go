package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/tenancy"
)

// guard enforces a key's RPM/TPM limits (in process, or in Redis shared by
// replicas) and its daily/monthly budgets (in the app database, shared by
// replicas). Both checks fail closed.
type guard struct {
	limiter tenancy.KeyLimiter
	budgets *billing.Budgets
	logger  *slog.Logger
}

var _ gateway.Guard = guard{}

func keyLimits(c gateway.Caller) tenancy.Limits {
	return tenancy.Limits{RPM: c.Limits.RPM, TPM: c.Limits.TPM,
		DailyBudgetMicros: c.Limits.DailyBudgetMicros, MonthlyBudgetMicros: c.Limits.MonthlyBudgetMicros}
}

// Admit checks the rate limits first (cheap), then the budgets.
func (g guard) Admit(ctx context.Context, c gateway.Caller, now time.Time) error {
	if err := tenancy.EnforceKeyLimits(ctx, g.limiter, c.KeyID, keyLimits(c), now); err != nil {
		return err
	}
	bs := billing.KeyBudgets(c.KeyID, c.Limits.DailyBudgetMicros, c.Limits.MonthlyBudgetMicros)
	if len(bs) == 0 {
		return nil
	}
	v, err := g.budgets.Check(ctx, bs, now)
	if err != nil {
		return err
	}
	for _, s := range v.SoftExceeded {
		g.logger.WarnContext(ctx, "soft budget exceeded", "scope", s.Budget.Scope, "period", string(s.Budget.Period), "spent_micros", s.SpentMicros, "key_prefix", c.KeyPrefix)
	}
	return nil
}

// Settle records spend and tokens in the background.
func (g guard) Settle(c gateway.Caller, costMicros int64, tokens int, now time.Time) {
	bs := billing.KeyBudgets(c.KeyID, c.Limits.DailyBudgetMicros, c.Limits.MonthlyBudgetMicros)
	if len(bs) == 0 && c.Limits.TPM == 0 {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := g.budgets.Record(ctx, bs, costMicros, now); err != nil {
			g.logger.ErrorContext(ctx, "budget record failed", "err", err, "key_prefix", c.KeyPrefix)
		}
		if c.Limits.TPM > 0 {
			if err := g.limiter.AddTokens(ctx, c.KeyID, tokens, now); err != nil {
				g.logger.WarnContext(ctx, "token count failed", "err", err, "key_prefix", c.KeyPrefix)
			}
		}
	}()
}
