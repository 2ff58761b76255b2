package routing

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// DefaultOrgTTL is how long OrgRouters trusts an organisation's cached
// settings: a change made on any replica applies everywhere within it.
const DefaultOrgTTL = 5 * time.Second

// maxCachedBundles bounds OrgRouters' router cache; when full it is emptied
// (routers rebuild from the store on the next request).
const maxCachedBundles = 256

// OrgRouters resolves an organisation's routing settings and router. Settings
// are cached per organisation for a TTL; routers over organisation bundles
// are cached per (organisation, bundle id), since bundles are immutable. Safe
// for concurrent use.
type OrgRouters struct {
	settings OrgSettingsStore
	bundles  OrgBundleStore
	fallback *Router
	cfg      Config
	ttl      time.Duration
	now      func() time.Time

	mu      sync.Mutex
	orgs    map[string]orgEntry
	routers map[string]*Router // orgID + "\x00" + bundle id
}

type orgEntry struct {
	settings OrgSettings
	router   *Router
	expires  time.Time
}

// NewOrgRouters returns a resolver over the stores. fallback is the default
// router used when an organisation chose no bundle (nil fails those requests
// closed with ErrNoBundle); cfg tunes the routers built over organisation
// bundles. A nil settings store means every organisation has zero settings;
// a nil bundle store fails closed any organisation that names a bundle.
func NewOrgRouters(settings OrgSettingsStore, bundles OrgBundleStore, fallback *Router, cfg Config) *OrgRouters {
	return &OrgRouters{
		settings: settings, bundles: bundles, fallback: fallback, cfg: cfg,
		ttl: DefaultOrgTTL, now: time.Now,
		orgs: map[string]orgEntry{}, routers: map[string]*Router{},
	}
}

// WithTTL sets the settings cache's TTL (DefaultOrgTTL when ttl <= 0) and
// clock (time.Now when nil). Call it before first use; it returns o.
func (o *OrgRouters) WithTTL(ttl time.Duration, now func() time.Time) *OrgRouters {
	if ttl <= 0 {
		ttl = DefaultOrgTTL
	}
	if now == nil {
		now = time.Now
	}
	o.ttl, o.now = ttl, now
	return o
}

// For returns orgID's settings and the router to use: over the
// organisation's bundle when settings.BundleID is set, the fallback
// otherwise. It fails closed: a store error, a missing bundle or one that
// does not load returns an error wrapping ErrUnavailable (and ErrNoBundle,
// ErrBundleNotFound, ErrBundle or ErrEmbedderMismatch), never the fallback.
// It blocks on the stores only when the organisation's cache entry expired.
func (o *OrgRouters) For(ctx context.Context, orgID string) (*Router, OrgSettings, error) {
	now := o.now()
	o.mu.Lock()
	e, ok := o.orgs[orgID]
	o.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.router, e.settings, nil
	}
	var s OrgSettings
	if o.settings != nil {
		var err error
		if s, err = o.settings.GetSettings(ctx, orgID); err != nil {
			return nil, OrgSettings{}, unavailable(fmt.Errorf("%w: %w", ErrSettingsUnavailable, err))
		}
	}
	r, err := o.router(ctx, orgID, s.BundleID)
	if err != nil {
		return nil, s, err
	}
	o.mu.Lock()
	o.orgs[orgID] = orgEntry{settings: s, router: r, expires: now.Add(o.ttl)}
	o.mu.Unlock()
	return r, s, nil
}

// Invalidate drops orgID's cached settings so this replica sees a change at
// once (other replicas see it within the TTL).
func (o *OrgRouters) Invalidate(orgID string) {
	o.mu.Lock()
	delete(o.orgs, orgID)
	o.mu.Unlock()
}

// router returns the router over orgID's bundle id, or the fallback for "".
func (o *OrgRouters) router(ctx context.Context, orgID, id string) (*Router, error) {
	if id == "" {
		if o.fallback == nil {
			return nil, unavailable(ErrNoBundle)
		}
		return o.fallback, nil
	}
	key := orgID + "\x00" + id
	o.mu.Lock()
	r, ok := o.routers[key]
	o.mu.Unlock()
	if ok {
		return r, nil
	}
	if o.bundles == nil {
		return nil, unavailable(fmt.Errorf("%w: no bundle store for bundle %s", ErrNoBundle, id))
	}
	b, err := o.bundles.GetBundle(ctx, orgID, id)
	if err != nil {
		return nil, unavailable(fmt.Errorf("organisation bundle %s: %w", id, err))
	}
	emb, err := BundleEmbedder(b, nil)
	if err != nil {
		return nil, unavailable(fmt.Errorf("organisation bundle %s: %w", id, err))
	}
	r, err = NewRouter(b, emb, o.cfg)
	if err != nil {
		return nil, err
	}
	o.mu.Lock()
	if len(o.routers) >= maxCachedBundles {
		clear(o.routers)
	}
	o.routers[key] = r
	o.mu.Unlock()
	return r, nil
}
