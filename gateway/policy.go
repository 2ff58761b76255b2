package gateway

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
)

// verdict is what the organisation's policy decided for a turn: an explicit
// model with its plan, or a routed turn the router decides within ceiling.
type verdict struct {
	explicit *resolution // nil for a routed turn
	baseline catalog.Model
	ceiling  catalog.Tier // 0: none
	policy   string       // "auto" or "route-all" for a routed turn
}

// cacheModel names the decision inside the response cache's key, so that an
// answer cached under one decision never answers a turn decided otherwise.
func (v verdict) cacheModel() string {
	if v.explicit != nil {
		return v.explicit.model.ID
	}
	return fmt.Sprintf("%s:%s:%d", v.policy, v.baseline.ID, v.ceiling)
}

// policyStage applies the organisation's policy: it reads the settings
// (failing closed when they cannot be read), maps the requested name
// through the aliases, then the catalog, then the organisation's own
// models, applies the allow and deny lists, and makes "auto" and route-all
// keys routed turns (route-all with the requested model as the ceiling).
type policyStage struct {
	routers  RouterSource
	catalog  *catalog.Catalog
	plans    planner
	tenant   TenantModels
	baseline catalog.Model
}

func (s policyStage) run(ctx context.Context, p *pass) error {
	p.org = routingFor(ctx, s.routers, p.t.Caller.OrgID)
	v, err := s.decide(ctx, p.t.Caller, p.req, p.org)
	p.verdict = v
	return err
}

// isAuto reports whether name asks the router to choose.
func isAuto(name string) bool {
	n := strings.ToLower(name)
	return n == "auto" || n == "heddle/auto" || n == "models/auto"
}

// decide is the verdict for req under org's settings.
func (s policyStage) decide(ctx context.Context, c Caller, req *llm.Request, org orgRouting) (verdict, error) {
	settings := org.settings
	if req.Model == "" {
		return verdict{}, &FieldError{Field: "model", Err: fmt.Errorf("%w: model is required", ErrUnknownModel)}
	}
	if org.unknown {
		// The allow and deny lists and the aliases could not be read: no
		// model is chosen without them.
		return verdict{}, org.err
	}
	requested, aliased := req.Model, false
	if target, ok := settings.ResolveAlias(req.Model); ok {
		requested, aliased = target, true
	}
	if isAuto(requested) {
		return verdict{baseline: s.baseline, policy: "auto"}, nil
	}
	model, err := s.catalog.Lookup(requested)
	if err != nil {
		// "<provider>/<its upstream id>" names a catalog model: it gets that
		// model's policy, never a pass-through around the deny list.
		if prov, up, ok := s.catalog.ProviderOf(requested); ok {
			if m, known := s.catalog.ModelByUpstream(prov, up); known {
				model, err = m, nil
			}
		}
	}
	if err != nil {
		tm, found, terr := s.tenantModel(ctx, c.OrgID, requested)
		switch {
		case terr != nil:
			return verdict{}, terr
		case found:
			return s.explicitTenant(tm, aliased, settings)
		case aliased:
			return verdict{}, &FieldError{Field: "model", Err: fmt.Errorf("%w: %q (the organisation's alias of %q)", ErrUnknownModel, requested, req.Model)}
		}
		if pt, ok := s.catalog.PassThroughOf(requested); ok && !settings.PassthroughOff {
			return s.passThrough(pt, settings, c.Policy == "route-all")
		}
		return verdict{}, &FieldError{Field: "model", Err: fmt.Errorf("%w: %q", ErrUnknownModel, req.Model)}
	}
	if !allowed(model.ID, settings) {
		return verdict{}, &FieldError{Field: "model", Err: fmt.Errorf("%w: %q", ErrModelNotAllowed, model.ID)}
	}
	if c.Policy == "route-all" {
		return verdict{baseline: model, ceiling: model.Tier, policy: "route-all"}, nil
	}
	plan, err := s.plans.plan(model)
	if err != nil {
		return verdict{}, err
	}
	return verdict{explicit: &resolution{
		model: model, baseline: model, route: RouteExplicit, plan: plan,
		provenance: dispatch.Provenance{Purpose: dispatch.PurposeMain, PolicyID: explicitPolicy(aliased)},
	}}, nil
}

func explicitPolicy(aliased bool) string {
	if aliased {
		return "alias"
	}
	return "explicit"
}

// tenantModel finds name among the organisation's own models. An error means
// they could not be read: the turn fails closed (as with unreadable
// settings), since the name may be one of them.
func (s policyStage) tenantModel(ctx context.Context, orgID, name string) (TenantModel, bool, error) {
	ms, err := s.tenant.OrgModels(ctx, orgID)
	if err != nil {
		return TenantModel{}, false, fmt.Errorf("%w: %w: tenant models: %w", routing.ErrUnavailable, routing.ErrSettingsUnavailable, err)
	}
	name = strings.ToLower(strings.TrimPrefix(name, "models/"))
	for _, m := range ms {
		if m.Model.ID == name {
			return m, true, nil
		}
	}
	return TenantModel{}, false, nil
}

// explicitTenant resolves an explicit (or aliased) request for a tenant
// model: its one target, priced at its own price, which is also the savings
// baseline. The router never chooses tenant models, so a route-all key
// serves it as asked.
func (s policyStage) explicitTenant(tm TenantModel, aliased bool, st routing.OrgSettings) (verdict, error) {
	if !allowed(tm.Model.ID, st) {
		return verdict{}, &FieldError{Field: "model", Err: fmt.Errorf("%w: %q", ErrModelNotAllowed, tm.Model.ID)}
	}
	target := tm.Target
	target.Price = tm.Model.Price
	return verdict{explicit: &resolution{
		model: tm.Model, baseline: tm.Model, route: RouteExplicit,
		plan:       dispatch.Plan{Targets: []dispatch.Target{target}, MaxAttempts: s.plans.maxAttempts},
		provenance: dispatch.Provenance{Purpose: dispatch.PurposeMain, PolicyID: explicitPolicy(aliased)},
	}}, nil
}

// passThrough resolves a name the catalog lacks but whose provider is clear
// (catalog.PassThroughOf; an organisation refuses them with its passthrough
// setting off): one target on that provider with the upstream id as sent,
// priced as an estimate by the family's nearest catalog entry, which the
// record notes as "price:estimated:<catalog id>". The allow and deny lists
// apply to the name as sent, and a denied catalog model it is priced as
// denies it too (denying an opus denies an unknown opus). It is a
// single-target plan (same-target retries) and its own savings baseline;
// under a route-all key it is the baseline and its catalog model's tier the
// ceiling, and the router chooses, as for any requested model.
func (s policyStage) passThrough(pt catalog.PassThrough, st routing.OrgSettings, routeAll bool) (verdict, error) {
	if !allowed(pt.Name, st) || slices.Contains(st.Deny, pt.PricedAs.ID) {
		return verdict{}, &FieldError{Field: "model", Err: fmt.Errorf("%w: %q", ErrModelNotAllowed, pt.Name)}
	}
	m := pt.PricedAs
	m.ID, m.Aliases, m.Price = pt.Name, nil, pt.Price
	m.Bindings = []catalog.Binding{{Provider: pt.Provider.Name, Upstream: pt.Upstream}}
	if routeAll {
		return verdict{baseline: m, ceiling: pt.PricedAs.Tier, policy: "route-all"}, nil
	}
	target := dispatch.Target{Model: pt.Name, Provider: pt.Provider.Name, Upstream: pt.Upstream,
		Format: pt.Provider.Format, BaseURL: pt.Provider.BaseURL, Price: pt.Price}
	return verdict{explicit: &resolution{
		model: m, baseline: m, route: RouteExplicit, estimated: pt.PricedAs.ID,
		plan:       dispatch.Plan{Targets: []dispatch.Target{target}, MaxAttempts: s.plans.maxAttempts},
		provenance: dispatch.Provenance{Purpose: dispatch.PurposeMain, PolicyID: "passthrough"},
	}}, nil
}
