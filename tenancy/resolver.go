package tenancy

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// ResolverConfig configures a CredentialResolver.
type ResolverConfig struct {
	// TTL bounds how long a decrypted secret (or "not configured") is reused;
	// 0 means 5 s, negative disables the cache.
	TTL time.Duration
	// MaxEntries bounds the cache; 0 means 10,000.
	MaxEntries int
	Now        func() time.Time // nil means time.Now
}

type resolved struct {
	secret  Secret
	err     error // nil or ErrNotConfigured
	fetched time.Time
}

// CredentialResolver gives the data plane an organisation's decrypted
// credential for a provider, cached briefly per org and provider. Safe for
// concurrent use.
type CredentialResolver struct {
	store CredentialStore
	vault *Vault
	cfg   ResolverConfig
	group singleflight.Group

	mu    sync.RWMutex
	cache map[string]resolved
	gen   uint64
}

// NewCredentialResolver returns a resolver over store and vault.
func NewCredentialResolver(store CredentialStore, vault *Vault, cfg ResolverConfig) *CredentialResolver {
	if cfg.TTL == 0 {
		cfg.TTL = 5 * time.Second
	}
	if cfg.MaxEntries <= 0 {
		cfg.MaxEntries = 10_000
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &CredentialResolver{store: store, vault: vault, cfg: cfg, cache: make(map[string]resolved)}
}

// Resolve returns orgID's credential for provider. It returns
// ErrNotConfigured when the org has none; other errors mean the store or
// the vault failed (callers fail closed).
func (r *CredentialResolver) Resolve(ctx context.Context, orgID, provider string) (Secret, error) {
	k := orgID + "|" + provider
	r.mu.RLock()
	e, ok := r.cache[k]
	r.mu.RUnlock()
	if ok && r.cfg.Now().Sub(e.fetched) < r.cfg.TTL {
		return e.secret, e.err
	}
	ch := r.group.DoChan(k, func() (any, error) {
		r.mu.RLock()
		gen := r.gen
		r.mu.RUnlock()
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lookupTimeout)
		defer cancel()
		e, err := r.fetch(fctx, orgID, provider)
		if err != nil {
			return nil, err
		}
		r.put(k, e, gen)
		return e, nil
	})
	select {
	case res := <-ch:
		if res.Err != nil {
			return Secret{}, res.Err
		}
		e = res.Val.(resolved)
		return e.secret, e.err
	case <-ctx.Done():
		return Secret{}, ctx.Err()
	}
}

func (r *CredentialResolver) fetch(ctx context.Context, orgID, provider string) (resolved, error) {
	for attempt := 0; ; attempt++ {
		c, err := r.store.CredentialByProvider(ctx, orgID, provider)
		if errors.Is(err, ErrNotFound) {
			return resolved{err: ErrNotConfigured, fetched: r.cfg.Now()}, nil
		}
		if err != nil {
			return resolved{}, fmt.Errorf("tenancy: resolve credential: %w", err)
		}
		pt, err := r.vault.Open(ctx, c)
		if errors.Is(err, ErrDataKeyChanged) && attempt < 3 {
			continue // re-sealed under a fresh DEK meanwhile: read the row again
		}
		if err != nil {
			return resolved{}, fmt.Errorf("tenancy: resolve credential: %w", err)
		}
		s := Secret{ID: c.ID, Provider: c.Provider, Label: c.Label, Value: string(pt), BaseURL: c.BaseURL}
		return resolved{secret: s, fetched: r.cfg.Now()}, nil
	}
}

func (r *CredentialResolver) put(k string, e resolved, gen uint64) {
	if r.cfg.TTL < 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if gen != r.gen {
		return
	}
	if len(r.cache) >= r.cfg.MaxEntries {
		clear(r.cache)
	}
	r.cache[k] = e
}

// Invalidate forgets orgID's cached credential for provider on this replica
// (other replicas pick up the change within TTL).
func (r *CredentialResolver) Invalidate(orgID, provider string) {
	k := orgID + "|" + provider
	r.mu.Lock()
	delete(r.cache, k)
	r.gen++
	r.mu.Unlock()
	r.group.Forget(k)
}
