package app

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/tenancy"
)

// guard enforces a key's RPM/TPM limits (in process, or in Redis shared by
// replicas), the key's daily/monthly budgets and its organisation's (spend in
// the app database, shared by replicas; organisation settings cached per
// replica for billing.DefaultOrgBudgetTTL, 5 s). Every check fails closed.
type guard struct {
	limiter    tenancy.KeyLimiter
	budgets    *billing.Budgets
	orgBudgets *billing.OrgBudgets
	alerts     *softAlerts
	logger     *slog.Logger
}

var _ gateway.Guard = guard{}

func keyLimits(c gateway.Caller) tenancy.Limits {
	return tenancy.Limits{RPM: c.Limits.RPM, TPM: c.Limits.TPM,
		DailyBudgetMicros: c.Limits.DailyBudgetMicros, MonthlyBudgetMicros: c.Limits.MonthlyBudgetMicros}
}

// Admit checks the rate limits first (cheap), then the key's and the
// organisation's budgets together: the first hard one spent refuses the
// turn (402), soft ones spent are logged. An organisation settings read
// error refuses it too (billing.ErrBudgetUnavailable, 503).
func (g guard) Admit(ctx context.Context, c gateway.Caller, now time.Time) error {
	if err := tenancy.EnforceKeyLimits(ctx, g.limiter, c.KeyID, keyLimits(c), now); err != nil {
		return err
	}
	bs := billing.KeyBudgets(c.KeyID, c.Limits.DailyBudgetMicros, c.Limits.MonthlyBudgetMicros, !c.Limits.SoftBudgets)
	org, err := g.orgBudgets.Get(ctx, c.OrgID)
	if err != nil {
		return err
	}
	bs = append(bs, org.Budgets(c.OrgID)...)
	v, err := g.budgets.Check(ctx, bs, now)
	if err != nil {
		return err
	}
	for _, s := range v.SoftExceeded {
		if g.alerts.due(s, now) {
			// An alert, not a request log: no key, no prompt.
			g.logger.WarnContext(ctx, "soft budget exceeded", "org_id", c.OrgID, "scope", s.Budget.Scope,
				"period", string(s.Budget.Period), "spent_micros", s.SpentMicros, "limit_micros", s.Budget.LimitMicros,
				"resets_at", s.ResetAt.Format(time.RFC3339))
		}
	}
	return nil
}

// Settle records spend and tokens. Spend goes to the key's and the
// organisation's day and month counters whether or not a budget is set, so a
// budget set mid-period counts what was already spent. It is recorded before
// Settle returns (budgets sit on the in-memory SpendBuffer, so this never
// waits on the database, and the shutdown flush sees every settled turn);
// the token count for TPM limits goes to its store in the background.
func (g guard) Settle(c gateway.Caller, costMicros int64, tokens int, now time.Time) {
	if costMicros > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := g.budgets.Record(ctx, billing.TurnScopes(c.OrgID, c.KeyID), costMicros, now); err != nil {
			g.logger.ErrorContext(ctx, "budget record failed", "err", err, "org_id", c.OrgID, "key_prefix", c.KeyPrefix)
		}
		cancel()
	}
	if c.Limits.TPM == 0 {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := g.limiter.AddTokens(ctx, c.KeyID, tokens, now); err != nil {
			g.logger.WarnContext(ctx, "token count failed", "err", err, "key_prefix", c.KeyPrefix)
		}
	}()
}

// softAlertEvery is how often one replica logs the same soft budget being
// over its limit: every request over it would flood the log.
const softAlertEvery = time.Minute

// softAlerts throttles soft-budget alerts per scope, period and period
// start. Safe for concurrent use.
type softAlerts struct {
	mu   sync.Mutex
	last map[string]time.Time
}

func newSoftAlerts() *softAlerts { return &softAlerts{last: map[string]time.Time{}} }

// due reports whether s should be logged now, and if so notes it.
func (a *softAlerts) due(s billing.BudgetStatus, now time.Time) bool {
	k := fmt.Sprint(s.Budget.Scope, "/", s.Budget.Period, "@", s.Budget.Period.Start(now).Unix())
	a.mu.Lock()
	defer a.mu.Unlock()
	if t, ok := a.last[k]; ok && now.Sub(t) < softAlertEvery {
		return false
	}
	if len(a.last) >= 10000 {
		clear(a.last)
	}
	a.last[k] = now
	return true
}
