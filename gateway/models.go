package gateway

import (
	"context"
	"fmt"
	"slices"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/routing"
)

// ModelsFor lists the models the caller's organisation may ask for: the
// catalog models it can reach (a binding to a provider it has a credential
// for; every model without a ProviderSet) that its allow and deny lists
// admit and no alias of the same name shadows, in catalog order, then its
// own models (same filters, by id), then its aliases by name: an alias of "auto" as a
// bare entry, an alias of a listed model as a copy of it under the alias
// name (an alias of a model not listed is left out). When the
// organisation's settings cannot be read it fails closed, as turns do.
func (s *Service) ModelsFor(ctx context.Context, c Caller) ([]catalog.Model, error) {
	org := routingFor(ctx, s.d.Routers, c.OrgID)
	if org.unknown {
		return nil, org.err
	}
	usable, err := s.route.providers.UsableProviders(ctx, c.OrgID)
	if err != nil {
		return nil, err
	}
	var out []catalog.Model
	for _, m := range s.d.Catalog.Models() {
		_, shadowed := org.settings.ResolveAlias(m.ID) // the alias is listed instead
		if !shadowed && allowed(m.ID, org.settings) && reachable(m, usable) {
			out = append(out, m)
		}
	}
	own, err := s.policy.tenant.OrgModels(ctx, c.OrgID)
	if err != nil {
		return nil, fmt.Errorf("%w: %w: tenant models: %w", routing.ErrUnavailable, routing.ErrSettingsUnavailable, err)
	}
	for _, tm := range own {
		_, shadowed := org.settings.ResolveAlias(tm.Model.ID)
		if !shadowed && allowed(tm.Model.ID, org.settings) {
			out = append(out, tm.Model)
		}
	}
	return append(out, aliasEntries(org.settings, out, s.d.Catalog)...), nil
}

func reachable(m catalog.Model, usable map[string]bool) bool {
	if usable == nil {
		return true
	}
	for _, b := range m.Bindings {
		if usable[b.Provider] {
			return true
		}
	}
	return false
}

func aliasEntries(st routing.OrgSettings, listed []catalog.Model, cat *catalog.Catalog) []catalog.Model {
	names := make([]string, 0, len(st.Aliases))
	for n := range st.Aliases {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []catalog.Model
	for _, n := range names {
		target := st.Aliases[n]
		if target == routing.AliasTargetAuto {
			out = append(out, catalog.Model{ID: n})
			continue
		}
		id := target
		if m, err := cat.Lookup(target); err == nil {
			id = m.ID
		} // else perhaps one of the organisation's own models, listed by id
		if i := slices.IndexFunc(listed, func(l catalog.Model) bool { return l.ID == id }); i >= 0 {
			alias := listed[i]
			alias.ID, alias.Aliases = n, nil
			out = append(out, alias)
		}
	}
	return out
}
