package billing

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/heddle-gw/heddle/internal/ttlcache"
)

// DefaultOrgBudgetTTL is how long OrgBudgets trusts an organisation's
// cached settings on one replica: a change made through another replica
// applies everywhere within it (a change through this replica at once).
const DefaultOrgBudgetTTL = 5 * time.Second

// maxCachedOrgs bounds the settings cache; when full it is emptied (entries
// reload from the store on the next request).
const maxCachedOrgs = 10000

// OrgBudgetsConfig configures OrgBudgets.
type OrgBudgetsConfig struct {
	// TTL is how long cached settings are used; zero means
	// DefaultOrgBudgetTTL.
	TTL time.Duration
	// Timeout bounds each store call; zero means 2 s.
	Timeout time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// OrgBudgets reads and changes organisations' budget settings. Get, on the
// request path, caches settings per organisation for the TTL; Load and Set,
// for the admin surfaces, always go to the store. Safe for concurrent use.
type OrgBudgets struct {
	store   OrgBudgetStore
	timeout time.Duration
	now     func() time.Time
	cache   *ttlcache.Cache[OrgBudgetSettings]
	loads   singleflight.Group // one store read per organisation at a time
}

// NewOrgBudgets returns the settings service over store.
func NewOrgBudgets(store OrgBudgetStore, cfg OrgBudgetsConfig) *OrgBudgets {
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultOrgBudgetTTL
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 2 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &OrgBudgets{store: store, timeout: cfg.Timeout, now: cfg.Now,
		cache: ttlcache.New[OrgBudgetSettings](cfg.TTL, maxCachedOrgs, cfg.Now)}
}

// Get returns orgID's settings, from the cache while they are younger than
// the TTL. A store error is returned wrapping ErrBudgetUnavailable (the
// caller fails closed); stale settings are never served in its place.
func (o *OrgBudgets) Get(ctx context.Context, orgID string) (OrgBudgetSettings, error) {
	return o.cache.Get(ctx, orgID, func(ctx context.Context) (OrgBudgetSettings, error) {
		// Every request of a busy organisation misses at once when its entry
		// expires: they share one read (bounded by the store timeout, not
		// by the first caller's cancellation).
		ch := o.loads.DoChan(orgID, func() (any, error) { return o.Load(context.WithoutCancel(ctx), orgID) })
		select {
		case r := <-ch:
			if r.Err != nil {
				return OrgBudgetSettings{}, r.Err
			}
			return r.Val.(OrgBudgetSettings), nil
		case <-ctx.Done():
			return OrgBudgetSettings{}, fmt.Errorf("%w: reading budget settings of %s: %w", ErrBudgetUnavailable, orgID, ctx.Err())
		}
	})
}

// Load reads orgID's settings from the store, bypassing the cache. Errors
// wrap ErrBudgetUnavailable.
func (o *OrgBudgets) Load(ctx context.Context, orgID string) (OrgBudgetSettings, error) {
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	s, err := o.store.GetOrgBudgets(ctx, orgID)
	if err != nil {
		return OrgBudgetSettings{}, fmt.Errorf("%w: reading budget settings of %s: %w", ErrBudgetUnavailable, orgID, err)
	}
	return s, nil
}

// Set validates s (a *FieldError wrapping ErrInvalidBudgetSettings when
// wrong), stores it as orgID's settings with UpdatedAt now, drops the cached
// entry, and returns the settings as stored. Store errors wrap
// ErrBudgetUnavailable.
func (o *OrgBudgets) Set(ctx context.Context, orgID string, s OrgBudgetSettings) (OrgBudgetSettings, error) {
	if err := s.Validate(); err != nil {
		return OrgBudgetSettings{}, err
	}
	s.UpdatedAt = o.now().UTC()
	put := func() error {
		ctx, cancel := context.WithTimeout(ctx, o.timeout)
		defer cancel()
		return o.store.PutOrgBudgets(ctx, orgID, s)
	}
	if err := put(); err != nil {
		return OrgBudgetSettings{}, fmt.Errorf("%w: storing budget settings of %s: %w", ErrBudgetUnavailable, orgID, err)
	}
	o.Invalidate(orgID)
	return o.Load(ctx, orgID)
}

// Invalidate drops orgID's cached settings: the next Get reads the store.
func (o *OrgBudgets) Invalidate(orgID string) {
	o.loads.Forget(orgID) // a Get after this starts its own read
	o.cache.Invalidate(orgID)
}
