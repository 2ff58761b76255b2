package admission

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/tenancy"
)

// settleTimeout bounds each store call Settle makes after a turn.
const settleTimeout = 5 * time.Second

// Deps are a Guard's collaborators; every field is required.
type Deps struct {
	// Limiter counts a key's requests and tokens per minute (in process, or
	// in Redis shared by replicas). A limiter that cannot reach its state
	// fails closed (tenancy.ErrLimiterUnavailable).
	Limiter tenancy.KeyLimiter
	// Budgets reads and records spend per scope and period.
	Budgets *billing.Budgets
	// OrgBudgets reads an organisation's budget settings (cached per replica
	// for billing.DefaultOrgBudgetTTL).
	OrgBudgets *billing.OrgBudgets
	// Logger receives soft-budget alerts and settle failures; never a key's
	// secret or prompt text.
	Logger *slog.Logger
}

// Guard enforces a key's RPM/TPM limits, the key's daily and monthly
// budgets and its organisation's, and records spend after each turn. Every
// check fails closed. Build it with New; safe for concurrent use.
type Guard struct {
	d      Deps
	alerts *softAlerts
}

var _ gateway.Guard = (*Guard)(nil)

// New returns a Guard over d, or an error wrapping ErrMissingDependency
// naming every nil field.
func New(d Deps) (*Guard, error) {
	var errs []error
	for _, f := range []struct {
		name    string
		missing bool
	}{
		{"Limiter", d.Limiter == nil}, {"Budgets", d.Budgets == nil}, {"OrgBudgets", d.OrgBudgets == nil}, {"Logger", d.Logger == nil},
	} {
		if f.missing {
			errs = append(errs, fmt.Errorf("%w: Deps.%s", ErrMissingDependency, f.name))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Guard{d: d, alerts: newSoftAlerts()}, nil
}

// Admit runs the checks in this order, and the first that refuses decides:
//
//  1. a caller without an organisation or key id is refused (ErrNoCaller
//     with billing.ErrBudgetUnavailable, 503): its spend has no owner;
//  2. the key's TPM (tokens already used this minute), then its RPM (this
//     request counted): a *tenancy.RateLimitError (429 with the retry
//     delay), or tenancy.ErrLimiterUnavailable (503) when the limiter's
//     store cannot be reached. Rate limits come first: they are cheap and
//     a refused request spends nothing;
//  3. the organisation's budget settings are read (an organisation that
//     never set any has none); a read error is billing.ErrBudgetUnavailable
//     (503), never stale settings;
//  4. the key's budgets (day, month), then the organisation's (day, month)
//     are checked together: the first hard one spent is a
//     *billing.BudgetError (402); a spend store error is
//     billing.ErrBudgetUnavailable (503). Soft ones spent admit the turn
//     and log an alert, at most once a minute per budget and period.
func (g *Guard) Admit(ctx context.Context, c gateway.Caller, now time.Time) error {
	if c.OrgID == "" || c.KeyID == "" {
		return fmt.Errorf("%w: %w", billing.ErrBudgetUnavailable, ErrNoCaller)
	}
	lim := tenancy.Limits{RPM: c.Limits.RPM, TPM: c.Limits.TPM}
	if err := tenancy.EnforceKeyLimits(ctx, g.d.Limiter, c.KeyID, lim, now); err != nil {
		return err
	}
	org, err := g.d.OrgBudgets.Get(ctx, c.OrgID)
	if err != nil {
		return err
	}
	bs := billing.KeyBudgets(c.KeyID, c.Limits.DailyBudgetMicros, c.Limits.MonthlyBudgetMicros, !c.Limits.SoftBudgets)
	bs = append(bs, org.Budgets(c.OrgID)...)
	v, err := g.d.Budgets.Check(ctx, bs, now)
	if err != nil {
		return err
	}
	for _, s := range v.SoftExceeded {
		if g.alerts.due(s, now) {
			// An alert, not a request log: no key secret, no prompt.
			g.d.Logger.WarnContext(ctx, "soft budget exceeded", "org_id", c.OrgID, "scope", s.Budget.Scope,
				"period", string(s.Budget.Period), "spent_micros", s.SpentMicros, "limit_micros", s.Budget.LimitMicros,
				"resets_at", s.ResetAt.Format(time.RFC3339))
		}
	}
	return nil
}

// Settle records a served turn. Its cost goes to the key's and the
// organisation's day and month counters whether or not a budget is set, so
// a budget set mid-period counts what was already spent; it is recorded
// before Settle returns (Budgets sits on billing.SpendBuffer in production,
// so this does not wait on the database, and the shutdown flush sees every
// settled turn). The tokens, for TPM limits, go to the limiter in the
// background (only when the key has a TPM limit). Failures are logged with
// the key's display prefix; Settle never blocks the response on them.
func (g *Guard) Settle(ctx context.Context, c gateway.Caller, costMicros int64, tokens int, now time.Time) {
	ctx = context.WithoutCancel(ctx) // the turn may be over; its values (traces, log fields) stay
	if costMicros > 0 {
		ctx, cancel := context.WithTimeout(ctx, settleTimeout)
		if err := g.d.Budgets.Record(ctx, billing.TurnScopes(c.OrgID, c.KeyID), costMicros, now); err != nil {
			g.d.Logger.ErrorContext(ctx, "budget record failed", "err", err, "org_id", c.OrgID, "key_prefix", c.KeyPrefix)
		}
		cancel()
	}
	if c.Limits.TPM <= 0 || tokens <= 0 {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(ctx, settleTimeout)
		defer cancel()
		if err := g.d.Limiter.AddTokens(ctx, c.KeyID, tokens, now); err != nil {
			g.d.Logger.WarnContext(ctx, "token count failed", "err", err, "key_prefix", c.KeyPrefix)
		}
	}()
}
