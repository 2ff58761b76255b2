package gateway

import (
	"context"
	"fmt"
	"slices"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch"
)

// planStage reads the organisation's funding once per turn, right after
// policy and before the cache, and refuses an explicit model its plan does
// not cover (ErrNotOnPlan). Later stages use what it read: the cache serves
// no entry whose model the plan no longer covers, the route stage offers
// the router only covered models, the credits stage reserves for them. So
// a plan downgrade applies to the next request, cached answers included.
type planStage struct {
	credits Credits
	catalog *catalog.Catalog
}

func (s planStage) run(ctx context.Context, p *pass) error {
	f, err := fundingOf(ctx, s.credits, s.catalog, p)
	if err != nil {
		return err
	}
	if v := p.verdict.explicit; v != nil && !f.covers(v.plan.Targets) {
		return fmt.Errorf("%w: %s", ErrNotOnPlan, v.model.ID)
	}
	return nil
}

// covers reports whether one of targets may run under f.
func (f Funding) covers(targets []dispatch.Target) bool {
	return slices.ContainsFunc(targets, func(t dispatch.Target) bool { return f.allows(t.Provider, t.Model) })
}

// bindable is f as a routing.Policy.Bindable: nil (every binding) without
// a plan. Routing, the model lists and the cache apply the plan through it.
func (f Funding) bindable() func(provider, model string) bool {
	if f.Plan == nil {
		return nil
	}
	return f.allows
}

// funding reads orgID's funding through c, with cat's providers; the zero
// Funding (no plan) without Credits.
func funding(ctx context.Context, c Credits, cat *catalog.Catalog, orgID string) (Funding, error) {
	if c == nil {
		return Funding{}, nil
	}
	f, err := c.Funding(ctx, orgID)
	if err != nil {
		return Funding{}, fmt.Errorf("gateway: credits: %w", err)
	}
	f.catalog = cat
	return f, nil
}

// fundingOf is the funding the plan stage read for p, else read now.
func fundingOf(ctx context.Context, c Credits, cat *catalog.Catalog, p *pass) (Funding, error) {
	if p.credit.read {
		return p.credit.funding, nil
	}
	f, err := funding(ctx, c, cat, p.t.Caller.OrgID)
	if err != nil {
		return Funding{}, err
	}
	p.credit.funding, p.credit.read = f, true
	return f, nil
}
