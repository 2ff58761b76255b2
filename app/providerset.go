package app

import (
	"context"
	"time"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/internal/ttlcache"
	"github.com/heddle-gw/heddle/tenancy"
)

// providerSetTTL is how long a replica trusts an organisation's cached
// provider set; a credential added or deleted on this replica is seen at once
// (Invalidate), on other replicas within the TTL.
const providerSetTTL = 5 * time.Second

// providerSet answers which catalog providers an organisation has a
// credential for, cached per organisation.
type providerSet struct {
	store   tenancy.CredentialStore
	catalog *catalog.Catalog
	cache   *ttlcache.Cache[map[string]bool]
	// plans gives organisations' plans (nil: none, BYOK only).
	plans interface {
		OrgPlan(ctx context.Context, orgID string) (*credits.Plan, error)
	}
}

func newProviderSet(store tenancy.CredentialStore, cat *catalog.Catalog, now func() time.Time) *providerSet {
	return &providerSet{store: store, catalog: cat, cache: ttlcache.New[map[string]bool](providerSetTTL, 0, now)}
}

// UsableProviders returns the provider names (catalog names, so "openai"
// also enables "openai-responses") the organisation can call: its BYOK
// credentials and the platform credentials its plan allows (plans is nil
// in CLI commands). The returned map may be shared: callers must not
// modify it.
func (p *providerSet) UsableProviders(ctx context.Context, orgID string) (map[string]bool, error) {
	set, err := p.byok(ctx, orgID)
	if err != nil || p.plans == nil {
		return set, err
	}
	plan, err := p.plans.OrgPlan(ctx, orgID)
	if err != nil || plan == nil {
		return set, err
	}
	platform, err := p.platformFor(ctx, plan)
	if err != nil || len(platform) == 0 {
		return set, err
	}
	out := make(map[string]bool, len(set)+len(platform))
	for k := range set {
		out[k] = true
	}
	for _, k := range platform {
		out[k] = true
	}
	return out, nil
}

// byok returns the catalog providers orgID has its own credential for
// (for credits.PlatformOrgID: those with a platform credential), cached.
func (p *providerSet) byok(ctx context.Context, orgID string) (map[string]bool, error) {
	return p.cache.Get(ctx, orgID, func(ctx context.Context) (map[string]bool, error) {
		creds, err := p.store.OrgCredentials(ctx, orgID)
		if err != nil {
			return nil, err
		}
		has := map[string]bool{}
		for _, c := range creds {
			has[c.Provider] = true
		}
		set := map[string]bool{}
		for _, prov := range p.catalog.Providers() {
			if has[prov.CredentialName()] {
				set[prov.Name] = true
			}
		}
		return set, nil
	})
}

// Invalidate forgets orgID's provider set (tenancy.CredentialsConfig.Changed
// calls it when a credential is added, rotated or deleted).
func (p *providerSet) Invalidate(orgID, _ string) { p.cache.Invalidate(orgID) }
