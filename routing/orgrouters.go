package routing

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/heddle-gw/heddle/internal/ttlcache"
)

// DefaultOrgTTL is how long OrgRouters trusts an organisation's cached
// settings: a change made on any replica applies everywhere within it.
const DefaultOrgTTL = 5 * time.Second

// maxCachedBundles bounds OrgRouters' router cache; when full it is emptied
// (routers rebuild from the store on the next request).
const maxCachedBundles = 256

// maxCachedOrgs bounds OrgRouters' settings cache (see ttlcache.New).
const maxCachedOrgs = 10000

// OrgRouters resolves an organisation's routing settings and router. Settings
// are cached per organisation for a TTL (a read that overlaps Invalidate is
// not cached); routers over organisation bundles are cached per
// (organisation, bundle id) without expiry, since bundles are immutable.
// Safe for concurrent use.
type OrgRouters struct {
	settings OrgSettingsStore
	bundles  OrgBundleStore
	fallback *Router
	cfg      Config
	orgs     *ttlcache.Cache[orgEntry]

	mu      sync.Mutex
	routers map[string]*Router // orgID + "\x00" + bundle id
}

type orgEntry struct {
	settings OrgSettings
	router   *Router
}

// NewOrgRouters returns a resolver over the stores. fallback is the default
// router used when an organisation chose no bundle (nil fails those requests
// closed with ErrNoBundle); cfg tunes the routers built over organisation
// bundles. A nil settings store means every organisation has zero settings;
// a nil bundle store fails closed any organisation that names a bundle.
func NewOrgRouters(settings OrgSettingsStore, bundles OrgBundleStore, fallback *Router, cfg Config) *OrgRouters {
	return &OrgRouters{
		settings: settings, bundles: bundles, fallback: fallback, cfg: cfg,
		orgs: ttlcache.New[orgEntry](DefaultOrgTTL, maxCachedOrgs, nil), routers: map[string]*Router{},
	}
}

// WithTTL sets the settings cache's TTL (DefaultOrgTTL when ttl <= 0) and
// clock (time.Now when nil). Call it before first use; it returns o.
func (o *OrgRouters) WithTTL(ttl time.Duration, now func() time.Time) *OrgRouters {
	if ttl <= 0 {
		ttl = DefaultOrgTTL
	}
	o.orgs = ttlcache.New[orgEntry](ttl, maxCachedOrgs, now)
	return o
}

// For returns orgID's settings and the router to use: over the
// organisation's bundle when settings.BundleID is set, the fallback
// otherwise. It fails closed: a store error, a missing bundle or one that
// does not load returns an error wrapping ErrUnavailable (and ErrNoBundle,
// ErrBundleNotFound, ErrBundle or ErrEmbedderMismatch), never the fallback.
// It blocks on the stores only when the organisation's cache entry expired.
func (o *OrgRouters) For(ctx context.Context, orgID string) (*Router, OrgSettings, error) {
	var s OrgSettings // also returned when the router fails
	e, err := o.orgs.Get(ctx, orgID, func(ctx context.Context) (orgEntry, error) {
		if o.settings != nil {
			var err error
			if s, err = o.settings.GetSettings(ctx, orgID); err != nil {
				s = OrgSettings{}
				return orgEntry{}, unavailable(fmt.Errorf("%w: %w", ErrSettingsUnavailable, err))
			}
		}
		r, err := o.router(ctx, orgID, s.BundleID)
		if err != nil {
			return orgEntry{}, err
		}
		return orgEntry{settings: s, router: r}, nil
	})
	if err != nil {
		return nil, s, err
	}
	return e.router, e.settings, nil
}

// Invalidate drops orgID's cached settings so this replica sees a change at
// once (other replicas see it within the TTL); a read already in flight is
// not cached.
func (o *OrgRouters) Invalidate(orgID string) { o.orgs.Invalidate(orgID) }

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
	emb, err := BundleEmbedder(b, o.cfg.Embedder)
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
