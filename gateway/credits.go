package gateway

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/dispatch"
)

// Credits funds turns that run on platform credentials (SPEC 9, hosted
// billing; credits.Service fits behind an adapter that adds the BYOK set).
// Every method honours ctx and blocks on the shared database.
type Credits interface {
	// Funding returns orgID's plan (nil: none, so no platform credential
	// serves it) and the catalog providers it has its own credential for.
	// It is read per turn, so a plan change applies from the next request;
	// an error fails the turn closed.
	Funding(ctx context.Context, orgID string) (Funding, error)
	// Reserve holds micros of credit, or returns an error wrapping
	// credits.ErrInsufficientCredits.
	Reserve(ctx context.Context, orgID, requestID string, micros int64) (*credits.Reservation, error)
	// Settle debits the call's cost at the plan's prices and releases the
	// rest; Release gives the whole hold back.
	Settle(ctx context.Context, r *credits.Reservation, u credits.Use) error
	Release(ctx context.Context, r *credits.Reservation) error
	// ChargeFee debits the plan's fee on a turn served by a BYOK credential.
	ChargeFee(ctx context.Context, orgID, requestID string, u credits.Use) error
}

// Funding is how an organisation's turns are paid for.
type Funding struct {
	Plan *credits.Plan
	// BYOK holds the catalog provider names the organisation has its own
	// credential for (BYOK wins over platform credentials).
	BYOK map[string]bool
	// catalog, set as the gateway reads the funding, tells the catalog's
	// providers (which a plan not naming them forbids) from an own model's.
	catalog *catalog.Catalog
}

// allows reports whether a target of model on provider may run under f:
// on the organisation's own credential, on a platform credential the plan
// allows for model, or on a provider that is neither a catalog provider
// nor named by the plan (its own models' providers; a missing credential
// fails at dispatch). A plan that names provider for other models only, or
// does not name a catalog provider (one a downgrade dropped), forbids it.
func (f Funding) allows(provider, model string) bool {
	return f.Plan == nil || f.BYOK[provider] || f.Plan.AllowsPlatform(provider, model) ||
		!f.Plan.ListsProvider(provider) && !f.catalogProvider(provider)
}

// catalogProvider reports whether provider is one of the catalog's.
func (f Funding) catalogProvider(provider string) bool {
	if f.catalog == nil {
		return false
	}
	_, err := f.catalog.Provider(provider)
	return err == nil
}

// WithCredits adds the credits stage: before dispatch it reserves the
// maximum cost of a turn that would run on a platform credential (402
// billing.insufficient_credits when the balance cannot cover it, nothing
// sent upstream); once the turn ended it settles the actual cost at the
// plan's prices and releases the rest, or releases everything.
func WithCredits(c Credits) Option { return func(o *options) { o.credits = c } }

// platformUse is a turn's permission to use platform credentials: the
// providers reserved for, and those a credential resolver actually used.
type platformUse struct {
	allowed map[string]bool
	mu      sync.Mutex
	used    map[string]bool
}

type platformKey struct{}

// withPlatform lets the dispatch of ctx use platform credentials of u's
// providers (nil: none).
func withPlatform(ctx context.Context, u *platformUse) context.Context {
	if u == nil {
		return ctx
	}
	return context.WithValue(ctx, platformKey{}, u)
}

// UsePlatform reports whether the turn running on ctx reserved credit for
// a platform credential of provider, and if so records that one was used
// (the credits stage then settles instead of releasing). A credential
// resolver calls it only after the organisation's own credential was not
// found; without a reservation it must not hand out a platform credential.
func UsePlatform(ctx context.Context, provider string) bool {
	u, _ := ctx.Value(platformKey{}).(*platformUse)
	if u == nil || !u.allowed[provider] {
		return false
	}
	u.mu.Lock()
	u.used[provider] = true
	u.mu.Unlock()
	return true
}

func (u *platformUse) usedFor(provider string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.used[provider]
}

// creditTurn is what the credits stage learned of one turn.
type creditTurn struct {
	funding Funding
	read    bool // funding was read (by the plan stage, or the credits stage)
	hold    *credits.Reservation
	use     *platformUse
}

// creditStage is the credits stage (see WithCredits).
type creditStage struct {
	credits Credits
	pricer  Pricer
}

func (s creditStage) run(ctx context.Context, p *pass) error {
	f, err := fundingOf(ctx, s.credits, s.pricer.Catalog, p)
	if err != nil {
		return err
	}
	if f.Plan == nil {
		return nil
	}
	allowed := map[string]bool{}
	var most int64
	kept := p.res.plan.Targets[:0:0]
	for _, t := range p.res.plan.Targets {
		if !f.allows(t.Provider, t.Model) {
			continue // the provider is on the plan, this model is not
		}
		if !f.BYOK[t.Provider] && f.Plan.AllowsPlatform(t.Provider, t.Model) {
			allowed[t.Provider] = true
			most = max(most, s.maxCost(t, p))
		}
		kept = append(kept, t)
	}
	if len(kept) == 0 {
		return fmt.Errorf("%w: %s", ErrNotOnPlan, p.res.model.ID)
	}
	p.res.plan.Targets = kept
	if len(allowed) == 0 {
		return nil
	}
	hold, err := s.credits.Reserve(ctx, p.t.Caller.OrgID, p.t.RequestID, f.Plan.Price(most))
	if err != nil {
		return fmt.Errorf("gateway: credits: %w", err)
	}
	p.credit.hold, p.credit.use = hold, &platformUse{allowed: allowed, used: map[string]bool{}}
	return nil
}

// maxCost bounds what t can cost for p's request at catalog prices:
// input at one token per prompt byte (an upper bound for byte-level
// tokenizers) at the dearer of the input and cache-write prices, output at
// the request's max tokens, else the model's maximum (for a name the
// catalog lacks, such as a pass-through: the maximum of the model it is
// priced as). An embeddings request is input only: one token per byte of
// the body sent upstream.
func (s creditStage) maxCost(t dispatch.Target, p *pass) int64 {
	price := s.pricer.price(t)
	if p.embed != nil {
		cost := float64(len(p.embed.wire.body)) * price.Input / 1e6
		return int64(cost*1e6) + 1
	}
	req := p.upstream()
	out := p.res.model.MaxOutput
	if m, err := s.pricer.Catalog.Lookup(t.Model); err == nil {
		out = m.MaxOutput
	}
	if req.MaxTokens > 0 && (out == 0 || req.MaxTokens < out) {
		out = req.MaxTokens
	}
	in := float64(4 * EstimateTokens(req))
	cost := in*max(price.Input, price.CacheWrite)/1e6 + float64(out)*price.Output/1e6
	return int64(cost*1e6) + 1
}

// finish settles or releases the turn's hold (after account priced it),
// or charges the plan's BYOK fee on a turn its own credential served; and
// charges the fee on the turn's handover summary call, when one was served
// on the organisation's own credential (a summary never runs on a platform
// credential: it is not reserved for).
func (s creditStage) finish(ctx context.Context, p *pass, _ error) {
	ct := p.credit
	if ct.funding.Plan == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if sum := p.summary; sum != nil && ct.funding.BYOK[sum.Served.Provider] {
		// The summary the account stage priced. Its own request id: the
		// ledger keeps one debit per request id, and the turn's own
		// settlement or fee holds p's.
		s.chargeFee(ctx, p, handoverRequestID(p.t.RequestID), sum.Served.Model, s.pricer.CostMicros(sum.Served, sum.Usage))
	}
	served := p.result != nil && p.result.Shared == dispatch.SharedNone && p.result.Attempts > 0
	platform := served && ct.use != nil && ct.use.usedFor(p.result.Served.Provider)
	switch {
	case ct.hold != nil && platform:
		use := credits.Use{Micros: ct.funding.Plan.Price(p.turnCost), Model: p.result.Served.Model, KeyID: p.t.Caller.KeyID}
		retryLedger(ctx, func(ctx context.Context) error { return s.credits.Settle(ctx, ct.hold, use) })
		return
	case ct.hold != nil:
		retryLedger(ctx, func(ctx context.Context) error { return s.credits.Release(ctx, ct.hold) })
	}
	if served && !platform && ct.funding.BYOK[p.result.Served.Provider] {
		s.chargeFee(ctx, p, p.t.RequestID, p.result.Served.Model, p.turnCost)
	}
}

// chargeFee debits, under requestID, the plan's BYOK fee on a call of p's
// turn to model that cost costMicros at catalog prices.
func (s creditStage) chargeFee(ctx context.Context, p *pass, requestID, model string, costMicros int64) {
	use := credits.Use{Micros: p.credit.funding.Plan.Fee(costMicros), Model: model, KeyID: p.t.Caller.KeyID}
	retryLedger(ctx, func(ctx context.Context) error { return s.credits.ChargeFee(ctx, p.t.Caller.OrgID, requestID, use) })
}

// handoverRequestID is the ledger request id of the fee on requestID's
// handover summary call (one debit per request id: the turn keeps its own).
func handoverRequestID(requestID string) string { return requestID + ":handover" }

// ledgerTries bounds the attempts at ending a turn's hold (a settlement or
// a release) or a BYOK fee. Each is idempotent (one debit per request id; a
// reservation ends once), so a ledger that is briefly unavailable is
// retried: a hold given up on is settled at its reservation by the stale
// sweep (credits.Service.SettleStale), the most the call could cost.
const ledgerTries = 3

// retryLedger runs debit until it succeeds, fails other than with
// credits.ErrUnavailable, ledgerTries ran or ctx ends, waiting 100 ms, then
// 200 ms between tries.
func retryLedger(ctx context.Context, debit func(context.Context) error) {
	wait := 100 * time.Millisecond
	for try := 1; ; try++ {
		err := debit(ctx)
		if err == nil || !errors.Is(err, credits.ErrUnavailable) || try == ledgerTries {
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait *= 2
	}
}
