package admission_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/admission"
	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/billing/billingtest"
	billingsql "github.com/heddle-gw/heddle/billing/sqlstore"
	"github.com/heddle-gw/heddle/internal/testdb"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/tenancy/ratelimitredis"
)

// testRedis is a rate store under the test's own Redis prefix.
func testRedis(t *testing.T) *ratelimitredis.Counters {
	r := testdb.NewRedis(t)
	return ratelimitredis.New(r.Client, r.Prefix)
}

// rateStores are the shared stores the app wires: Redis, else the app
// database (SQLite, Postgres).
var rateStores = []struct {
	name string
	open func(t *testing.T) billing.SpendStore
}{
	{"redis", func(t *testing.T) billing.SpendStore { return testRedis(t) }},
	{"sqlite", func(t *testing.T) billing.SpendStore { return billingsql.NewRateCounters(testdb.SQLite(t).DB) }},
	{"postgres", func(t *testing.T) billing.SpendStore { return billingsql.NewRateCounters(testdb.Postgres(t).DB) }},
}

// TestRateCountersShareLimitsAcrossReplicas: two replicas over one shared
// store. A limit spent through replica 1 refuses on replica 2 once both
// synced (the documented bound: two sync intervals), requests and tokens
// alike; neither replica calls the store per request after its first
// check; the next window starts over.
func TestRateCountersShareLimitsAcrossReplicas(t *testing.T) {
	for _, st := range rateStores {
		t.Run(st.name, func(t *testing.T) {
			ctx := context.Background()
			store := st.open(t)
			clock := now
			at := func() time.Time { return clock }
			r1 := admission.NewRateCounters(store, time.Minute, at)
			r2 := admission.NewRateCounters(store, time.Minute, at)
			allow := func(r *admission.RateCounters, rpm int) bool {
				t.Helper()
				ok, retry, err := r.Allow(ctx, "k1", rpm, clock)
				if err != nil {
					t.Fatal(err)
				}
				if !ok && retry != 45*time.Second {
					t.Fatalf("retry after %s, want the 45 s left in the window", retry)
				}
				return ok
			}
			if !allow(r2, 10) { // replica 2 reads the (empty) store once
				t.Fatal("first request refused")
			}
			for i := range 9 {
				if !allow(r1, 10) {
					t.Fatalf("replica 1 request %d refused", i+2)
				}
			}
			// Replica 1 knows of its own 9 only: one more is in its bound.
			if !allow(r1, 10) || allow(r1, 10) {
				t.Fatal("replica 1 does not stop at its own 10")
			}
			for _, r := range []*admission.RateCounters{r1, r2, r1} {
				if err := r.Sync(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if allow(r2, 10) || allow(r1, 10) {
				t.Fatal("after both synced, a replica admitted over the shared 11 of 10")
			}
			if got, err := store.Spent(ctx, "r:k1", clock.Truncate(time.Minute)); err != nil || got != 11 {
				t.Fatalf("stored requests = %d, %v; want 11 (10 + the one replica 2 took before syncing)", got, err)
			}

			if err := r1.AddTokens(ctx, "k1", 150, clock); err != nil {
				t.Fatal(err)
			}
			if ok, _, err := r2.TokensOK(ctx, "k1", 100, clock); err != nil || !ok {
				t.Fatalf("replica 2 tokens before any sync = %v, %v; want ok", ok, err)
			}
			if err := errors.Join(r1.Sync(ctx), r2.Sync(ctx)); err != nil {
				t.Fatal(err)
			}
			for i, r := range []*admission.RateCounters{r1, r2} {
				if ok, retry, err := r.TokensOK(ctx, "k1", 100, clock); err != nil || ok || retry != 45*time.Second {
					t.Fatalf("replica %d tokens after sync = %v, %s, %v; want refused for 45 s", i+1, ok, retry, err)
				}
				if ok, _, err := r.TokensOK(ctx, "k1", 151, clock); err != nil || !ok {
					t.Fatalf("replica %d at tpm 151 = %v, %v; want ok", i+1, ok, err)
				}
			}

			clock = now.Add(time.Minute)
			if !allow(r2, 10) || !allow(r1, 10) {
				t.Fatal("the next window did not start over")
			}
			if s := r1.Stats(); s.LastSync.IsZero() || s.SyncFailures != 0 {
				t.Fatalf("stats = %+v", s)
			}
		})
	}
}

// TestRateCountersConcurrentReplicaAdmitsExactly: 8 goroutines on one
// replica never admit more than rpm (the check and count are one step).
func TestRateCountersConcurrentReplicaAdmitsExactly(t *testing.T) {
	ctx := context.Background()
	r := admission.NewRateCounters(testRedis(t), time.Minute, nil)
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				ok, _, err := r.Allow(ctx, "k1", 100, now)
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					admitted.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if admitted.Load() != 100 {
		t.Fatalf("admitted %d of 400 at rpm 100", admitted.Load())
	}
}

// TestRateCountersFailClosedWhenStale: while the store is down a replica
// keeps answering from its view until the view is older than the stale
// bound, then refuses with tenancy.ErrLimiterUnavailable; a sync failure is
// counted.
func TestRateCountersFailClosedWhenStale(t *testing.T) {
	ctx := context.Background()
	clock := now
	store := billingtest.NewMemory(nil)
	r := admission.NewRateCounters(store, 30*time.Second, func() time.Time { return clock })
	if ok, _, err := r.Allow(ctx, "k1", 5, clock); err != nil || !ok {
		t.Fatalf("first Allow = %v, %v", ok, err)
	}
	store.Fail(errors.New("store down"))
	if err := r.Sync(ctx); err == nil {
		t.Fatal("Sync over a failing store succeeded")
	}
	clock = now.Add(30 * time.Second)
	if ok, _, err := r.Allow(ctx, "k1", 5, clock); err != nil || !ok {
		t.Fatalf("within the bound: Allow = %v, %v; want answered from memory", ok, err)
	}
	clock = now.Add(31 * time.Second)
	ok, _, err := r.Allow(ctx, "k1", 5, clock)
	if ok || !errors.Is(err, tenancy.ErrLimiterUnavailable) {
		t.Fatalf("past the bound: Allow = %v, %v; want ErrLimiterUnavailable", ok, err)
	}
	if _, _, err := r.TokensOK(ctx, "k2", 5, clock); !errors.Is(err, tenancy.ErrLimiterUnavailable) {
		t.Fatalf("TokensOK of an unread counter = %v; want ErrLimiterUnavailable", err)
	}
	if s := r.Stats(); s.SyncFailures != 1 || !s.LastSync.IsZero() {
		t.Fatalf("stats = %+v; want 1 failure, no sync", s)
	}
}

// TestRateCountersRunSweepsAndFlushes: Run adds the counts on its interval
// and once more when stopped; the app database's past windows are swept.
func TestRateCountersRunSweepsAndFlushes(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		store := billingsql.NewRateCounters(d.DB)
		old := time.Now().Add(-10 * time.Minute).Truncate(time.Minute)
		if err := store.Add(ctx, "r:old", old, 3); err != nil {
			t.Fatal(err)
		}
		if err := store.Sweep(ctx, old); err != nil {
			t.Fatal(err)
		}
		if n, err := store.Spent(ctx, "r:old", old); err != nil || n != 3 {
			t.Fatalf("a window at the cut-off was swept: %d, %v", n, err)
		}
		if err := store.Sweep(ctx, old.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if n, err := store.Spent(ctx, "r:old", old); err != nil || n != 0 {
			t.Fatalf("a past window survived the sweep: %d, %v", n, err)
		}

		r := admission.NewRateCounters(store, time.Minute, nil)
		runCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { r.Run(runCtx, time.Hour, 5*time.Second, func(err error) { t.Error(err) }); close(done) }()
		at := time.Now()
		for range 3 {
			if ok, _, err := r.Allow(ctx, "k1", 10, at); err != nil || !ok {
				t.Fatalf("Allow = %v, %v", ok, err)
			}
		}
		stop()
		<-done
		if n, err := store.Spent(ctx, "r:k1", at.UTC().Truncate(time.Minute)); err != nil || n != 3 {
			t.Fatalf("after Run stopped the store holds %d, %v; want 3", n, err)
		}
	})
}

// blockedRead is a store whose reads of one scope wait until release is
// closed (a slow first read of the minute), signalling entered first.
type blockedRead struct {
	billing.SpendStore
	scope   string
	entered chan struct{}
	release chan struct{}
}

func (s *blockedRead) Spent(ctx context.Context, scope string, start time.Time) (int64, error) {
	if scope == s.scope {
		close(s.entered)
		<-s.release
	}
	return s.SpendStore.Spent(ctx, scope, start)
}

// TestRateCountersSlowReadBlocksNoOtherKey: while one key's first check of
// the minute waits on the store, the checks of a thousand other keys (some
// of which would share a lock with it if locks were held across the read)
// are answered; once the read returns, the slow key is counted exactly.
func TestRateCountersSlowReadBlocksNoOtherKey(t *testing.T) {
	ctx := context.Background()
	store := &blockedRead{SpendStore: billingtest.NewMemory(nil), scope: "r:slow", entered: make(chan struct{}), release: make(chan struct{})}
	r := admission.NewRateCounters(store, time.Minute, nil)
	slow := make(chan error, 1)
	go func() {
		ok, _, err := r.Allow(ctx, "slow", 1, now)
		if err == nil && !ok {
			err = errors.New("refused")
		}
		slow <- err
	}()
	<-store.entered
	others := make(chan error, 1)
	go func() {
		for k := range 1000 {
			if ok, _, err := r.Allow(ctx, fmt.Sprintf("k%d", k), 1, now); err != nil || !ok {
				others <- fmt.Errorf("key k%d: Allow = %v, %v", k, ok, err)
				return
			}
		}
		others <- nil
	}()
	select {
	case err := <-others:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("other keys' checks still waiting after a minute behind one key's store read")
	}
	close(store.release)
	if err := <-slow; err != nil {
		t.Fatalf("slow key: %v", err)
	}
	if ok, _, err := r.Allow(ctx, "slow", 1, now); err != nil || ok {
		t.Fatalf("slow key's second request at rpm 1: Allow = %v, %v; want refused", ok, err)
	}
}
