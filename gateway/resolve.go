package gateway

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/routing"
)

// Router picks a model for a routed turn (routing.Router fits). It fails
// closed: every error wraps routing.ErrUnavailable.
type Router interface {
	Decide(ctx context.Context, q routing.Query) (routing.Decision, error)
}

// RouterSource gives an organisation's router (its own bundle or the
// default) and routing settings. Errors wrap routing.ErrUnavailable; when
// they also wrap routing.ErrSettingsUnavailable the settings could not be
// read and every turn of the organisation fails closed.
type RouterSource interface {
	For(ctx context.Context, orgID string) (Router, routing.OrgSettings, error)
}

// StaticRouters is a RouterSource serving Router with default settings to
// every organisation; a nil Router fails routed turns closed.
type StaticRouters struct{ Router Router }

// For returns the one router and default settings.
func (s StaticRouters) For(context.Context, string) (Router, routing.OrgSettings, error) {
	if s.Router == nil {
		return nil, routing.OrgSettings{}, fmt.Errorf("%w: %w", routing.ErrUnavailable, routing.ErrNoBundle)
	}
	return s.Router, routing.OrgSettings{}, nil
}

// ProviderSet reports which providers an organisation can call (its BYOK
// credentials and any platform credentials its plan allows).
type ProviderSet interface {
	UsableProviders(ctx context.Context, orgID string) (map[string]bool, error)
}

// allProviders is the ProviderSet without WithProviders: nil means every
// provider is usable.
type allProviders struct{}

func (allProviders) UsableProviders(context.Context, string) (map[string]bool, error) {
	return nil, nil
}

// TenantModel is one of an organisation's own models (SPEC 4): its catalog
// form (its own prices, one binding to the organisation's provider) and the
// target that reaches it (provider name, upstream id, format, base URL;
// the pipeline sets its Price from Model's).
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

// noTenantModels is the TenantModels without WithTenantModels.
type noTenantModels struct{}

func (noTenantModels) OrgModels(context.Context, string) ([]TenantModel, error) { return nil, nil }

// resolution is the model a turn runs on, how it was chosen and its plan.
type resolution struct {
	model      catalog.Model
	baseline   catalog.Model
	route      string
	plan       dispatch.Plan
	provenance dispatch.Provenance
	decision   *routing.Decision
	eligible   []string         // routed turns: the models the router could choose
	session    *sessionState    // routed turns of a pinned session
	turn       routing.TurnType // routed turns: the turn's type, classified once
	// estimated is the catalog model whose price estimates a pass-through
	// turn's cost ("" for a priced model).
	estimated string
}

// summary is the short routing decision kept with the request record.
func (r *resolution) summary() string {
	if r.decision == nil && r.estimated != "" {
		return r.route + ":" + r.model.ID + " price:estimated:" + r.estimated
	}
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

// routingFor reads the organisation's router and settings.
func routingFor(ctx context.Context, src RouterSource, orgID string) orgRouting {
	r, st, err := src.For(ctx, orgID)
	if err != nil {
		// Without a router the settings may still be known; only when
		// they are not is every turn refused.
		return orgRouting{err: err, settings: st, unknown: errors.Is(err, routing.ErrSettingsUnavailable)}
	}
	return orgRouting{router: r, settings: st}
}

// allowed applies the organisation's allow and deny lists to an explicitly
// requested model.
func allowed(model string, st routing.OrgSettings) bool {
	if slices.Contains(st.Deny, model) {
		return false
	}
	return len(st.Allow) == 0 || slices.Contains(st.Allow, model)
}

// planner builds plans from catalog models.
type planner struct {
	catalog     *catalog.Catalog
	maxAttempts int
}

// plan lists the model's bindings in catalog order.
func (p planner) plan(m catalog.Model) (dispatch.Plan, error) {
	plan := dispatch.Plan{MaxAttempts: p.maxAttempts}
	for _, b := range m.Bindings {
		pr, err := p.catalog.Provider(b.Provider)
		if err != nil {
			continue
		}
		plan.Targets = append(plan.Targets, dispatch.Target{
			Model: m.ID, Provider: pr.Name, Upstream: b.Upstream, Format: pr.Format, BaseURL: pr.BaseURL,
		})
	}
	if len(plan.Targets) == 0 {
		return plan, fmt.Errorf("%w: %s", ErrNoBinding, m.ID)
	}
	return plan, nil
}
