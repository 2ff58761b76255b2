package tenancy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// Principal is who an rk_ key speaks for. A Principal returned by
// Authenticate is shared with the cache and must not be modified.
type Principal struct {
	OrgID     string
	KeyID     string
	KeyPrefix string // display prefix, the only form of a key that may be logged
	Scopes    []Scope
	Policy    Policy
	Alpha     *float64 // nil: the organisation's dial
	Limits    Limits
	Tags      []string
	ExpiresAt *time.Time
}

// HasScope reports whether the key carries scope s.
func (p *Principal) HasScope(s Scope) bool { return slices.Contains(p.Scopes, s) }

// AuthConfig configures an Authenticator.
type AuthConfig struct {
	// CacheTTL bounds how long a lookup (hit or miss) is reused, and so how
	// long a revocation on another replica takes to apply. 0 means 2 s;
	// negative disables the cache.
	CacheTTL time.Duration
	// MaxEntries bounds the cache; 0 means 100,000.
	MaxEntries int
	// TouchEvery is the least time between two last-used writes of a key;
	// 0 means one minute.
	TouchEvery time.Duration
	// FlushEvery is how often Run writes pending last-used times; 0 means 10 s.
	FlushEvery time.Duration
	Now        func() time.Time // nil means time.Now
	Logger     *slog.Logger     // nil discards
}

type authEntry struct {
	key       *Key       // nil: no such key
	principal *Principal // built once per fetch
	fetched   time.Time
}

// Authenticator checks rk_ keys on the hot path: a format check, SHA-256,
// an in-process cache, and the store on a miss. It is safe for concurrent use.
type Authenticator struct {
	store KeyLookup
	cfg   AuthConfig
	group singleflight.Group

	mu    sync.RWMutex
	cache map[string]*authEntry
	// gen counts invalidations, so a fetch that raced one is not cached.
	gen uint64

	touchMu sync.Mutex
	touched map[string]time.Time // key id -> last time a write was scheduled
	pending map[string]time.Time // key id -> last-used time to write
}

// NewAuthenticator returns an Authenticator over store.
func NewAuthenticator(store KeyLookup, cfg AuthConfig) *Authenticator {
	if cfg.CacheTTL == 0 {
		cfg.CacheTTL = 2 * time.Second
	}
	if cfg.MaxEntries <= 0 {
		cfg.MaxEntries = 100_000
	}
	if cfg.TouchEvery <= 0 {
		cfg.TouchEvery = time.Minute
	}
	if cfg.FlushEvery <= 0 {
		cfg.FlushEvery = 10 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Authenticator{
		store: store, cfg: cfg, cache: make(map[string]*authEntry),
		touched: make(map[string]time.Time), pending: make(map[string]time.Time),
	}
}

// Authenticate returns the principal of a presented key. Unknown, malformed,
// expired and revoked keys are all ErrUnauthorized; a suspended key is
// ErrUnauthorized wrapped with ErrKeySuspended; a store failure is
// another error (callers fail closed).
func (a *Authenticator) Authenticate(ctx context.Context, presented string) (*Principal, error) {
	hash, _, err := ParseKey(presented)
	if err != nil {
		return nil, ErrUnauthorized
	}
	now := a.cfg.Now()
	e, err := a.lookup(ctx, hash, now)
	if err != nil {
		return nil, err
	}
	k := e.key
	if k == nil || k.RevokedAt != nil || (k.ExpiresAt != nil && !now.Before(*k.ExpiresAt)) {
		return nil, ErrUnauthorized
	}
	if k.SuspendedAt != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnauthorized, ErrKeySuspended)
	}
	a.touch(k.ID, now)
	return e.principal, nil
}

func (a *Authenticator) lookup(ctx context.Context, hash string, now time.Time) (*authEntry, error) {
	a.mu.RLock()
	e := a.cache[hash]
	a.mu.RUnlock()
	if e != nil && now.Sub(e.fetched) < a.cfg.CacheTTL {
		return e, nil
	}
	ch := a.group.DoChan(hash, func() (any, error) {
		a.mu.RLock()
		gen := a.gen
		a.mu.RUnlock()
		// The fetch is shared by every waiter: bound it, but do not let one
		// waiter's cancellation fail the others.
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lookupTimeout)
		defer cancel()
		k, err := a.store.KeyByHash(fctx, hash)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("tenancy: authenticate: %w", err)
		}
		if err != nil {
			k = nil
		}
		e := &authEntry{key: k, fetched: a.cfg.Now()}
		if k != nil {
			e.principal = principalOf(k)
		}
		a.store1(hash, e, gen)
		return e, nil
	})
	select {
	case r := <-ch:
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Val.(*authEntry), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// lookupTimeout bounds one shared store lookup on the hot path.
const lookupTimeout = 5 * time.Second

func (a *Authenticator) store1(hash string, e *authEntry, gen uint64) {
	if a.cfg.CacheTTL < 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.gen != gen {
		return
	}
	if len(a.cache) >= a.cfg.MaxEntries {
		now := a.cfg.Now()
		for h, old := range a.cache {
			if now.Sub(old.fetched) >= a.cfg.CacheTTL {
				delete(a.cache, h)
			}
		}
		if len(a.cache) >= a.cfg.MaxEntries {
			clear(a.cache)
		}
	}
	a.cache[hash] = e
}

func principalOf(k *Key) *Principal {
	return &Principal{
		OrgID: k.OrgID, KeyID: k.ID, KeyPrefix: k.Prefix, Scopes: slices.Clone(k.Scopes),
		Policy: k.Policy, Alpha: k.Alpha, Limits: k.Limits, Tags: slices.Clone(k.Tags), ExpiresAt: k.ExpiresAt,
	}
}

// Invalidate forgets the cached lookup of the key with hex SHA-256 hash.
func (a *Authenticator) Invalidate(hash string) {
	a.mu.Lock()
	delete(a.cache, hash)
	a.gen++
	a.mu.Unlock()
	a.group.Forget(hash)
}

// touch schedules a last-used write at most once per TouchEvery per key.
func (a *Authenticator) touch(keyID string, now time.Time) {
	a.touchMu.Lock()
	defer a.touchMu.Unlock()
	if last, ok := a.touched[keyID]; ok && now.Sub(last) < a.cfg.TouchEvery {
		return
	}
	a.touched[keyID] = now
	a.pending[keyID] = now
}

// FlushUsage writes pending last-used times in one batch. On failure the
// times are kept for the next flush.
func (a *Authenticator) FlushUsage(ctx context.Context) error {
	a.touchMu.Lock()
	batch := a.pending
	a.pending = make(map[string]time.Time, len(batch))
	now := a.cfg.Now()
	for id, t := range a.touched {
		if now.Sub(t) >= a.cfg.TouchEvery {
			delete(a.touched, id)
		}
	}
	a.touchMu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	if err := a.store.TouchKeys(ctx, batch); err != nil {
		a.touchMu.Lock()
		for id, t := range batch {
			if _, ok := a.pending[id]; !ok {
				a.pending[id] = t
			}
		}
		a.touchMu.Unlock()
		return fmt.Errorf("tenancy: record key use: %w", err)
	}
	return nil
}

// Run flushes last-used times every FlushEvery until ctx ends, then flushes
// once more (bounded by 5 s). It blocks; run it in its own goroutine.
func (a *Authenticator) Run(ctx context.Context) {
	t := time.NewTicker(a.cfg.FlushEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := a.FlushUsage(fctx); err != nil {
				a.cfg.Logger.WarnContext(fctx, "key usage flush failed", "err", err)
			}
			return
		case <-t.C:
			if err := a.FlushUsage(ctx); err != nil {
				a.cfg.Logger.WarnContext(ctx, "key usage flush failed", "err", err)
			}
		}
	}
}
