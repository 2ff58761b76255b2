package tenancy_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/tenancy/tenancytest"
)

// countingStore counts store lookups and can fail them.
type countingStore struct {
	*tenancytest.Memory
	lookups atomic.Int64
	touches atomic.Int64
	fail    atomic.Bool
}

func (s *countingStore) KeyByHash(ctx context.Context, hash string) (*tenancy.Key, error) {
	s.lookups.Add(1)
	if s.fail.Load() {
		return nil, errors.New("database down")
	}
	return s.Memory.KeyByHash(ctx, hash)
}

func (s *countingStore) TouchKeys(ctx context.Context, used map[string]time.Time) error {
	s.touches.Add(1)
	return s.Memory.TouchKeys(ctx, used)
}

func TestAuthenticate(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	store := &countingStore{Memory: w.store}
	auth := tenancy.NewAuthenticator(store, tenancy.AuthConfig{Now: w.clock.Now})
	keys := tenancy.NewKeys(w.store, tenancy.KeysConfig{Now: w.clock.Now, Auth: auth})

	exp := w.clock.Now().Add(time.Minute)
	good, goodPlain, err := keys.Create(ctx, w.ownerA, tenancy.KeyInput{
		Name: "good", Policy: tenancy.PolicyRouteAll, Alpha: ptr(0.7), Scopes: []tenancy.Scope{tenancy.ScopeInference},
		Limits: tenancy.Limits{RPM: 60, TPM: 1000, DailyBudgetMicros: 5, MonthlyBudgetMicros: 9},
	})
	noErr(t, err)
	revoked, revokedPlain, err := keys.Create(ctx, w.ownerA, tenancy.KeyInput{Name: "revoked"})
	noErr(t, err)
	noErr(t, keys.Revoke(ctx, w.ownerA, revoked.ID))
	_, expiringPlain, err := keys.Create(ctx, w.ownerA, tenancy.KeyInput{Name: "expiring", ExpiresAt: &exp})
	noErr(t, err)

	p, err := auth.Authenticate(ctx, goodPlain)
	noErr(t, err)
	if p.OrgID != w.orgA.ID || p.KeyID != good.ID || p.KeyPrefix != goodPlain[:11] || p.Policy != tenancy.PolicyRouteAll ||
		*p.Alpha != 0.7 || p.Limits != good.Limits || !p.HasScope(tenancy.ScopeInference) || p.HasScope(tenancy.ScopeRoute) {
		t.Fatalf("principal %+v", p)
	}
	if _, err := auth.Authenticate(ctx, expiringPlain); err != nil {
		t.Fatalf("key before expiry: %v", err)
	}
	w.clock.Advance(time.Minute)

	for _, c := range []struct{ name, key string }{
		{"unknown", tenancy.GenerateKey()},
		{"revoked", revokedPlain},
		{"expired", expiringPlain},
		{"malformed", "rk_short"},
		{"empty", ""},
		{"bearer prefix left on", "Bearer " + goodPlain},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := auth.Authenticate(ctx, c.key)
			wantErr(t, err, tenancy.ErrUnauthorized)
			if p != nil {
				t.Fatalf("principal returned with error")
			}
		})
	}

	// A malformed key never reaches the store.
	before := store.lookups.Load()
	_, _ = auth.Authenticate(ctx, "rk_!!!")
	if store.lookups.Load() != before {
		t.Fatal("malformed key looked up in the store")
	}
	// Cached: a second hit within the TTL does not touch the store.
	_, _ = auth.Authenticate(ctx, goodPlain)
	before = store.lookups.Load()
	_, err = auth.Authenticate(ctx, goodPlain)
	noErr(t, err)
	if store.lookups.Load() != before {
		t.Fatal("cached key looked up again within the TTL")
	}
	// A store failure is not ErrUnauthorized (fail closed, but not as a 401).
	store.fail.Store(true)
	w.clock.Advance(3 * time.Second)
	_, err = auth.Authenticate(ctx, goodPlain)
	if err == nil || errors.Is(err, tenancy.ErrUnauthorized) {
		t.Fatalf("store failure: got %v", err)
	}
}

func TestRevocationReachesOtherReplicaWithinTTL(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	const ttl = 2 * time.Second
	local := tenancy.NewAuthenticator(w.store, tenancy.AuthConfig{Now: w.clock.Now, CacheTTL: ttl})
	remote := tenancy.NewAuthenticator(w.store, tenancy.AuthConfig{Now: w.clock.Now, CacheTTL: ttl})
	keys := tenancy.NewKeys(w.store, tenancy.KeysConfig{Now: w.clock.Now, Auth: local})
	k, plain, err := keys.Create(ctx, w.ownerA, tenancy.KeyInput{Name: "k"})
	noErr(t, err)
	for _, a := range []*tenancy.Authenticator{local, remote} {
		_, err := a.Authenticate(ctx, plain)
		noErr(t, err)
	}
	noErr(t, keys.Revoke(ctx, w.ownerA, k.ID))
	_, err = local.Authenticate(ctx, plain)
	wantErr(t, err, tenancy.ErrUnauthorized) // the revoking replica: at once

	w.clock.Advance(ttl)
	_, err = remote.Authenticate(ctx, plain)
	wantErr(t, err, tenancy.ErrUnauthorized) // the other replica: within the TTL
}

func TestLastUsedWrittenAtMostOncePerMinute(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	store := &countingStore{Memory: w.store}
	auth := tenancy.NewAuthenticator(store, tenancy.AuthConfig{Now: w.clock.Now})
	keys := tenancy.NewKeys(w.store, tenancy.KeysConfig{Now: w.clock.Now})
	k, plain, err := keys.Create(ctx, w.ownerA, tenancy.KeyInput{Name: "k"})
	noErr(t, err)

	first := w.clock.Now()
	for range 100 {
		_, err := auth.Authenticate(ctx, plain)
		noErr(t, err)
		w.clock.Advance(100 * time.Millisecond) // 10 s in all
	}
	if store.touches.Load() != 0 {
		t.Fatal("a request wrote last-used synchronously")
	}
	noErr(t, auth.FlushUsage(ctx))
	noErr(t, auth.FlushUsage(ctx)) // nothing pending: no second write
	if n := store.touches.Load(); n != 1 {
		t.Fatalf("%d last-used writes for 100 requests in 10 s, want 1", n)
	}
	got, _ := w.store.OrgKey(ctx, w.orgA.ID, k.ID)
	if got.LastUsedAt == nil || !got.LastUsedAt.Equal(first) {
		t.Fatalf("last used %v, want %v", got.LastUsedAt, first)
	}

	w.clock.Advance(time.Minute)
	_, err = auth.Authenticate(ctx, plain)
	noErr(t, err)
	// A failed flush keeps the time for the next one.
	w.store.FailTouch(errors.New("database down"))
	if err := auth.FlushUsage(ctx); err == nil {
		t.Fatal("flush against a failing store succeeded")
	}
	w.store.FailTouch(nil)
	noErr(t, auth.FlushUsage(ctx))
	got, _ = w.store.OrgKey(ctx, w.orgA.ID, k.ID)
	if !got.LastUsedAt.Equal(w.clock.Now()) {
		t.Fatalf("last used after retry %v, want %v", got.LastUsedAt, w.clock.Now())
	}
}

type blockingStore struct {
	*tenancytest.Memory
	release chan struct{}
}

func (s *blockingStore) KeyByHash(ctx context.Context, hash string) (*tenancy.Key, error) {
	select {
	case <-s.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.Memory.KeyByHash(ctx, hash)
}

func TestAuthenticateHonoursContext(t *testing.T) {
	w := newWorld(t)
	keys := tenancy.NewKeys(w.store, tenancy.KeysConfig{Now: w.clock.Now})
	_, plain, err := keys.Create(context.Background(), w.ownerA, tenancy.KeyInput{Name: "k"})
	noErr(t, err)
	store := &blockingStore{Memory: w.store, release: make(chan struct{})}
	auth := tenancy.NewAuthenticator(store, tenancy.AuthConfig{Now: w.clock.Now})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := auth.Authenticate(ctx, plain); done <- err }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Authenticate ignored its context while the store hung")
	}
	close(store.release)
	if _, err := auth.Authenticate(context.Background(), plain); err != nil {
		t.Fatalf("after the store recovered: %v", err)
	}
}
