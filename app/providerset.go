package app

import (
	"context"
	"sync"
	"time"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/tenancy"
)

// providerSet answers which catalog providers an organisation has a
// credential for, cached for a few seconds per organisation.
type providerSet struct {
	store   tenancy.CredentialStore
	catalog *catalog.Catalog
	ttl     time.Duration

	mu    sync.Mutex
	cache map[string]providerEntry
}

type providerEntry struct {
	set     map[string]bool
	fetched time.Time
}

func newProviderSet(store tenancy.CredentialStore, cat *catalog.Catalog) *providerSet {
	return &providerSet{store: store, catalog: cat, ttl: 5 * time.Second, cache: map[string]providerEntry{}}
}

// UsableProviders returns the provider names (catalog names, so "openai"
// also enables "openai-responses") the organisation can call.
func (p *providerSet) UsableProviders(ctx context.Context, orgID string) (map[string]bool, error) {
	now := time.Now()
	p.mu.Lock()
	e, ok := p.cache[orgID]
	p.mu.Unlock()
	if ok && now.Sub(e.fetched) < p.ttl {
		return e.set, nil
	}
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
	p.mu.Lock()
	if len(p.cache) > 10000 {
		p.cache = map[string]providerEntry{}
	}
	p.cache[orgID] = providerEntry{set: set, fetched: now}
	p.mu.Unlock()
	return set, nil
}
