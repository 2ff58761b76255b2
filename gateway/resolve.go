package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
)

// Router picks a model for a routed turn (routing.Router fits). It fails
// closed: every error wraps routing.ErrUnavailable.
type Router interface {
	Decide(ctx context.Context, q routing.Query) (routing.Decision, error)
}

// RouterSource gives an organisation's router (its own bundle or the
// default) and routing settings. Errors wrap routing.ErrUnavailable.
type RouterSource interface {
	For(ctx context.Context, orgID string) (Router, routing.OrgSettings, error)
}

// ProviderSet reports which providers an organisation can call (its BYOK
// credentials and any platform credentials its plan allows).
type ProviderSet interface {
	UsableProviders(ctx context.Context, orgID string) (map[string]bool, error)
}

// TenantModel is one of an organisation's own models (SPEC 4): its catalog
// form (its own prices, one binding to the organisation's provider) and the
// target that reaches it (provider name, upstream id, format, base URL).
type TenantModel struct {
	Model  catalog.Model
	Target dispatch.Target
}

// TenantModels gives an organisation's own models, never another's. It may
// serve from a short cache; an error means they could not be read, and the
// turns that need them fail closed.
type TenantModels interface {
	OrgModels(ctx context.Context, orgID string) ([]TenantModel, error)
}

// resolution is the model a turn runs on, how it was chosen and its plan.
type resolution struct {
	model      catalog.Model
	baseline   catalog.Model
	route      string
	plan       dispatch.Plan
	provenance dispatch.Provenance
	decision   *routing.Decision
	session    *sessionState // routed turns of a pinned session
}

// isAuto reports whether name asks the router to choose.
func isAuto(name string) bool {
	n := strings.ToLower(name)
	return n == "auto" || n == "heddle/auto" || n == "models/auto"
}

// resolve decides the model for req: the requested one (explicit, after the
// organisation's alias of its name, if any), or the router's choice for
// "auto" (or a name aliased to it) and for route-all keys, where the
// requested model is the quality ceiling and the savings baseline.
func (s *Service) resolve(ctx context.Context, c Caller, h http.Header, req *llm.Request, org orgRouting) (*resolution, error) {
	settings := org.settings
	if req.Model == "" {
		return nil, &FieldError{Field: "model", Err: fmt.Errorf("%w: model is required", ErrUnknownModel)}
	}
	if org.unknown {
		// The allow and deny lists and the aliases could not be read: no
		// model is chosen without them.
		return nil, org.err
	}
	requested, aliased := req.Model, false
	if target, ok := settings.ResolveAlias(req.Model); ok {
		requested, aliased = target, true
	}
	if isAuto(requested) {
		base, err := s.d.Catalog.Lookup(s.d.BaselineModel)
		if err != nil {
			return nil, fmt.Errorf("gateway: baseline model %q: %w", s.d.BaselineModel, err)
		}
		return s.route(ctx, c, h, req, base, 0, "auto", org)
	}
	model, err := s.d.Catalog.Lookup(requested)
	if err != nil {
		tm, found, terr := s.tenantModel(ctx, c.OrgID, requested)
		switch {
		case terr != nil:
			return nil, terr
		case found:
			s.d.TenantPrices.put(c.OrgID, tm.Model.ID, tm.Model.Price)
			return s.explicitTenant(tm, aliased, settings)
		case aliased:
			return nil, &FieldError{Field: "model", Err: fmt.Errorf("%w: %q (the organisation's alias of %q)", ErrUnknownModel, requested, req.Model)}
		}
		return nil, &FieldError{Field: "model", Err: fmt.Errorf("%w: %q", ErrUnknownModel, req.Model)}
	}
	if !allowed(model.ID, settings) {
		return nil, &FieldError{Field: "model", Err: fmt.Errorf("%w: %q", ErrModelNotAllowed, model.ID)}
	}
	if c.Policy == "route-all" {
		return s.route(ctx, c, h, req, model, model.Tier, "route-all", org)
	}
	plan, err := s.planFor(model)
	if err != nil {
		return nil, err
	}
	policy := "explicit"
	if aliased {
		policy = "alias"
	}
	return &resolution{
		model: model, baseline: model, route: RouteExplicit, plan: plan,
		provenance: dispatch.Provenance{Purpose: dispatch.PurposeMain, PolicyID: policy},
	}, nil
}

// route asks the router, within the ceiling tier (0: none).
func (s *Service) route(ctx context.Context, c Caller, h http.Header, req *llm.Request, baseline catalog.Model, ceiling catalog.Tier, policy string, org orgRouting) (*resolution, error) {
	if org.err != nil {
		return nil, org.err // routed turns fail closed
	}
	router, settings := org.router, org.settings
	pol := settings.Policy()
	pol.Ceiling = ceiling
	if s.d.Providers != nil {
		usable, err := s.d.Providers.UsableProviders(ctx, c.OrgID)
		if err != nil {
			return nil, fmt.Errorf("gateway: usable providers: %w", err)
		}
		pol.UsableProviders = usable
	}
	eligible, drops := routing.Eligible(s.d.Catalog.Models(), routing.NeedsOf(req), pol)
	alpha := s.d.DefaultAlpha
	if settings.Alpha != nil {
		alpha = *settings.Alpha
	}
	if c.Alpha != nil {
		alpha = *c.Alpha
	}
	d, err := router.Decide(ctx, routing.Query{
		Text: routing.EmbeddingText(req, s.d.EmbedBytes), Alpha: alpha, Eligible: eligible, Drops: drops,
	})
	if err != nil {
		return nil, err
	}
	model, err := s.d.Catalog.Lookup(d.Model)
	if err != nil {
		return nil, fmt.Errorf("%w: bundle chose %q, unknown to the catalog", routing.ErrUnavailable, d.Model)
	}
	plan, err := s.planFor(model)
	if err != nil {
		return nil, err
	}
	// The runner-up model's bindings are the policy fallback.
	if next := runnerUp(d, model.ID); next != "" {
		if m, err := s.d.Catalog.Lookup(next); err == nil {
			if alt, err := s.planFor(m); err == nil {
				plan.Targets = append(plan.Targets, alt.Targets...)
			}
		}
	}
	res := &resolution{
		model: model, baseline: baseline, route: RouteRouted, plan: plan, decision: &d,
		provenance: dispatch.Provenance{
			Purpose: dispatch.PurposeMain, PolicyID: policy, BundleID: d.BundleID, BundleRevision: d.BundleRevision,
		},
	}
	if h != nil {
		if err := s.applyPin(ctx, c, h, req, res, eligible); err != nil {
			return nil, err
		}
	}
	return res, nil
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

// summary is the short routing decision kept with the request record.
func (r *resolution) summary() string {
	if r.decision == nil {
		return r.route + ":" + r.model.ID
	}
	top := ""
	for _, sc := range r.decision.Scores {
		if sc.Model == r.model.ID {
			top = fmt.Sprintf(" score=%.3f", sc.Score)
		}
	}
	return fmt.Sprintf("%s:%s alpha=%.2f%s bundle=%s@%s%s", r.route, r.model.ID, r.decision.Alpha, top,
		r.decision.BundleID, r.decision.BundleRevision, r.session.planSummary())
}

// orgRouting is an organisation's router and routing settings, read once
// per turn. When the router is unavailable, err is set (it wraps
// routing.ErrUnavailable) and routed turns fail closed on it; when the
// settings themselves could not be read (unknown), every turn does, since
// the organisation's allow and deny lists and aliases are unknown.
type orgRouting struct {
	router   Router
	settings routing.OrgSettings
	err      error
	// unknown says the settings could not be read (not merely that no
	// router exists), so the cache is bypassed to be safe.
	unknown bool
}

// cacheBypass says whether the turn must skip the response cache.
func (o orgRouting) cacheBypass() bool { return o.unknown || o.settings.CacheBypass }

// routingFor reads the organisation's router and settings: from the Routers
// source when set, else the single Router with default settings.
func (s *Service) routingFor(ctx context.Context, orgID string) orgRouting {
	if s.d.Routers != nil {
		r, st, err := s.d.Routers.For(ctx, orgID)
		if err != nil {
			// Without a router the settings may still be known; only when
			// they are not is every turn refused.
			return orgRouting{err: err, settings: st, unknown: errors.Is(err, routing.ErrSettingsUnavailable)}
		}
		return orgRouting{router: r, settings: st}
	}
	if s.d.Router == nil {
		return orgRouting{err: fmt.Errorf("%w: %w", routing.ErrUnavailable, routing.ErrNoBundle)}
	}
	return orgRouting{router: s.d.Router}
}

// allowed applies the organisation's allow and deny lists to an explicitly
// requested model.
func allowed(model string, st routing.OrgSettings) bool {
	if slices.Contains(st.Deny, model) {
		return false
	}
	return len(st.Allow) == 0 || slices.Contains(st.Allow, model)
}

// tenantModel finds name among the organisation's own models. An error means
// they could not be read: the turn fails closed (as with unreadable
// settings), since the name may be one of them.
func (s *Service) tenantModel(ctx context.Context, orgID, name string) (TenantModel, bool, error) {
	if s.d.Tenant == nil {
		return TenantModel{}, false, nil
	}
	ms, err := s.d.Tenant.OrgModels(ctx, orgID)
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
// model: its one target, its own price as the savings baseline. The router
// never chooses tenant models, so a route-all key serves it as asked.
func (s *Service) explicitTenant(tm TenantModel, aliased bool, st routing.OrgSettings) (*resolution, error) {
	if !allowed(tm.Model.ID, st) {
		return nil, &FieldError{Field: "model", Err: fmt.Errorf("%w: %q", ErrModelNotAllowed, tm.Model.ID)}
	}
	policy := "explicit"
	if aliased {
		policy = "alias"
	}
	return &resolution{
		model: tm.Model, baseline: tm.Model, route: RouteExplicit,
		plan:       dispatch.Plan{Targets: []dispatch.Target{tm.Target}, MaxAttempts: s.d.MaxAttempts},
		provenance: dispatch.Provenance{Purpose: dispatch.PurposeMain, PolicyID: policy},
	}, nil
}
