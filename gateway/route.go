package gateway

import (
	"context"
	"fmt"
	"slices"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
)

// routeStage turns the policy's verdict into the turn's resolution: an
// explicit model as policy chose it, or the router's choice for a routed
// turn among the eligible models (within the ceiling, on the providers the
// organisation can use), with the runner-up's bindings as the fallback.
type routeStage struct {
	catalog   *catalog.Catalog
	plans     planner
	providers ProviderSet
	// credits, with hosted billing, narrows the candidates to the models
	// the organisation's plan or its own credentials cover (nil: no plans).
	credits Credits
	alpha   float64 // the default dial
}

func (s routeStage) run(ctx context.Context, p *pass) error {
	var f Funding
	if p.verdict.explicit == nil {
		var err error
		if f, err = fundingOf(ctx, s.credits, s.catalog, p); err != nil {
			return err
		}
	}
	res, err := s.resolve(ctx, p.t.Caller, p.req, p.verdict, p.org, f)
	p.res = res
	return err
}

// resolve is the resolution of v under the organisation's funding f.
func (s routeStage) resolve(ctx context.Context, c Caller, req *llm.Request, v verdict, org orgRouting, f Funding) (*resolution, error) {
	if v.explicit != nil {
		return v.explicit, nil
	}
	if org.err != nil {
		return nil, org.err // routed turns fail closed
	}
	pol := org.settings.Policy()
	pol.Ceiling = v.ceiling
	usable, err := s.providers.UsableProviders(ctx, c.OrgID)
	if err != nil {
		return nil, fmt.Errorf("gateway: usable providers: %w", err)
	}
	pol.UsableProviders, pol.Bindable = usable, f.bindable()
	eligible, drops := routing.Eligible(s.catalog.Models(), routing.NeedsOf(req), pol)
	if len(eligible) == 0 && slices.ContainsFunc(drops, func(d routing.Drop) bool { return d.Reason == routing.DropNotOnPlan }) {
		return nil, fmt.Errorf("%w: no model the plan or the organisation's own credentials cover fits this request", ErrNotOnPlan)
	}
	alpha := s.alpha
	if org.settings.Alpha != nil {
		alpha = *org.settings.Alpha
	}
	if c.Alpha != nil {
		alpha = *c.Alpha
	}
	turn := routing.ClassifyTurn(req)
	d, err := org.router.Decide(ctx, routing.Query{
		Text: routing.EmbeddingText(req, routing.MaxQueryBytes), Alpha: alpha, Eligible: eligible, Drops: drops, Turn: turn,
	})
	if err != nil {
		return nil, err
	}
	model, err := s.catalog.Lookup(d.Model)
	if err != nil {
		return nil, fmt.Errorf("%w: bundle chose %q, unknown to the catalog", routing.ErrUnavailable, d.Model)
	}
	plan, err := s.plans.plan(model)
	if err != nil {
		return nil, err
	}
	// The runner-up model's bindings are the policy fallback.
	if next := runnerUp(d, model.ID); next != "" {
		if m, err := s.catalog.Lookup(next); err == nil {
			if alt, err := s.plans.plan(m); err == nil {
				plan.Targets = append(plan.Targets, alt.Targets...)
			}
		}
	}
	return &resolution{
		model: model, baseline: v.baseline, route: RouteRouted, plan: plan, decision: &d, eligible: eligible, turn: turn,
		provenance: dispatch.Provenance{
			Purpose: dispatch.PurposeMain, PolicyID: v.policy, BundleID: d.BundleID, BundleRevision: d.BundleRevision,
		},
	}, nil
}

// runnerUp is the best-scoring model other than chosen, or "".
func runnerUp(d routing.Decision, chosen string) string {
	best, name := -1.0, ""
	for _, sc := range d.Scores {
		if sc.Model != chosen && sc.Score > best {
			best, name = sc.Score, sc.Model
		}
	}
	return name
}
