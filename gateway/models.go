package gateway

import (
	"context"
	"fmt"
	"slices"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/routing"
)

// ModelEntry is one name an organisation's keys may ask for (ListModels).
type ModelEntry struct {
	// Model is the model listed (for an alias: its target's properties
	// under the alias name; for an embedding model: its id, family and
	// MaxInput as ContextWindow).
	Model catalog.Model
	// AliasOf is the target of an organisation alias ("auto" or a model
	// id); "" for a model listed under its own name.
	AliasOf string
	// Embedding marks an embedding model (or an alias of one).
	Embedding bool
}

// ModelsFor lists the chat models of ListModels (aliases included, without
// their marks): what the console's Models page shows.
func (s *Service) ModelsFor(ctx context.Context, c Caller) ([]catalog.Model, error) {
	entries, err := s.ListModels(ctx, c)
	if err != nil {
		return nil, err
	}
	var out []catalog.Model
	for _, e := range entries {
		if !e.Embedding {
			out = append(out, e.Model)
		}
	}
	return out, nil
}

// ListModels lists the models the caller's organisation may ask for: the
// catalog models routing could bind for it (routing.Eligible with no needs:
// its allow and deny lists, a binding to a provider it has a credential
// for, every model without a ProviderSet, and on a hosted plan only the
// bindings the plan or the organisation's own credentials cover) that no
// alias of the same name shadows, in catalog order, then its own models
// (the same lists and plan, by id), then its aliases by name: an alias of
// "auto" as a bare entry, an alias of a listed model as a copy of it under
// the alias name (an alias of a model not listed is left out); then the
// embedding models on the same rule, then the aliases of listed ones.
// When the organisation's settings or its funding cannot be read it fails
// closed, as turns do.
func (s *Service) ListModels(ctx context.Context, c Caller) ([]ModelEntry, error) {
	org := routingFor(ctx, s.d.Routers, c.OrgID)
	if org.unknown {
		return nil, org.err
	}
	usable, err := s.route.providers.UsableProviders(ctx, c.OrgID)
	if err != nil {
		return nil, err
	}
	f, err := funding(ctx, s.route.credits, s.d.Catalog, c.OrgID)
	if err != nil {
		return nil, err
	}
	pol := org.settings.Policy()
	pol.UsableProviders, pol.Bindable = usable, f.bindable()
	listable := func(models []catalog.Model) []catalog.Model {
		eligible, _ := routing.Eligible(models, routing.Needs{}, pol)
		var out []catalog.Model
		for _, m := range models {
			_, shadowed := org.settings.ResolveAlias(m.ID) // the alias is listed instead
			if !shadowed && slices.Contains(eligible, m.ID) {
				out = append(out, m)
			}
		}
		return out
	}
	chat := listable(s.d.Catalog.Models())
	own, err := s.policy.tenant.OrgModels(ctx, c.OrgID)
	if err != nil {
		return nil, fmt.Errorf("%w: %w: tenant models: %w", routing.ErrUnavailable, routing.ErrSettingsUnavailable, err)
	}
	for _, tm := range own {
		_, shadowed := org.settings.ResolveAlias(tm.Model.ID)
		if !shadowed && allowed(tm.Model.ID, org.settings) && f.covers([]dispatch.Target{tm.Target}) {
			chat = append(chat, tm.Model)
		}
	}
	var out []ModelEntry
	for _, m := range chat {
		out = append(out, ModelEntry{Model: m})
	}
	out = append(out, aliasEntries(org.settings, chat, s.d.Catalog.Lookup, false)...)
	var embeddings []catalog.Model
	for _, m := range s.d.Catalog.Embeddings() {
		embeddings = append(embeddings, catalog.Model{ID: m.ID, Family: m.Family, ContextWindow: m.MaxInput, Bindings: m.Bindings})
	}
	embed := listable(embeddings)
	for _, em := range embed {
		out = append(out, ModelEntry{Model: em, Embedding: true})
	}
	embedLookup := func(name string) (catalog.Model, error) {
		m, err := s.d.Catalog.Embedding(name)
		return catalog.Model{ID: m.ID}, err
	}
	return append(out, aliasEntries(org.settings, embed, embedLookup, true)...), nil
}

// aliasEntries lists st's aliases, by name, whose target is among listed
// (found through lookup, a catalog's name resolution; else by id, as the
// organisation's own models are) or, unless embedding, is "auto".
func aliasEntries(st routing.OrgSettings, listed []catalog.Model, lookup func(string) (catalog.Model, error), embedding bool) []ModelEntry {
	names := make([]string, 0, len(st.Aliases))
	for n := range st.Aliases {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []ModelEntry
	for _, n := range names {
		target := st.Aliases[n]
		if target == routing.AliasTargetAuto {
			if !embedding {
				out = append(out, ModelEntry{Model: catalog.Model{ID: n}, AliasOf: target})
			}
			continue
		}
		id := target
		if m, err := lookup(target); err == nil {
			id = m.ID
		} // else perhaps one of the organisation's own models, listed by id
		if i := slices.IndexFunc(listed, func(l catalog.Model) bool { return l.ID == id }); i >= 0 {
			alias := listed[i]
			alias.ID, alias.Aliases = n, nil
			out = append(out, ModelEntry{Model: alias, AliasOf: id, Embedding: embedding})
		}
	}
	return out
}
