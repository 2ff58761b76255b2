package ratelimitredis_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/internal/testdb"
	"github.com/heddle-gw/heddle/tenancy/ratelimitredis"
)

// TestCounters: counters start at 0, add atomically from two clients
// (replicas), are kept per scope and window, and read back one by one or
// many at once (missing ones absent).
func TestCounters(t *testing.T) {
	ctx := context.Background()
	r := testdb.NewRedis(t)
	rdb, prefix := r.Client, r.Prefix
	other := redis.NewClient(rdb.Options())
	defer other.Close()
	replicas := []*ratelimitredis.Counters{ratelimitredis.New(rdb, prefix), ratelimitredis.New(other, prefix)}
	w := time.Now().UTC().Truncate(time.Minute)
	if n, err := replicas[0].Spent(ctx, "r:k1", w); err != nil || n != 0 {
		t.Fatalf("unwritten counter = %d, %v", n, err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 25 {
				if err := replicas[g%2].Add(ctx, "r:k1", w, 2); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := replicas[1].Add(ctx, "t:k1", w, 7); err != nil {
		t.Fatal(err)
	}
	if err := replicas[1].Add(ctx, "r:k1", w.Add(time.Minute), 1); err != nil {
		t.Fatal(err)
	}
	if n, err := replicas[1].Spent(ctx, "r:k1", w); err != nil || n != 400 {
		t.Fatalf("r:k1 = %d, %v; want 400", n, err)
	}
	got, err := replicas[0].SpentMany(ctx, w, []string{"r:k1", "t:k1", "r:k2"})
	if err != nil || len(got) != 2 || got["r:k1"] != 400 || got["t:k1"] != 7 {
		t.Fatalf("SpentMany = %v, %v", got, err)
	}
	if got, err := replicas[0].SpentMany(ctx, w.Add(time.Minute), []string{"r:k1"}); err != nil || got["r:k1"] != 1 {
		t.Fatalf("next window = %v, %v", got, err)
	}
}

// TestCountersExpire: every counter lives under the prefix, names its
// scope, and expires no later than a minute after its window.
func TestCountersExpire(t *testing.T) {
	ctx := context.Background()
	r := testdb.NewRedis(t)
	rdb, prefix := r.Client, r.Prefix
	c := ratelimitredis.New(rdb, prefix)
	w := time.Now().UTC().Truncate(time.Minute)
	if err := c.Add(ctx, "r:k1", w, 1); err != nil {
		t.Fatal(err)
	}
	keys, err := rdb.Keys(ctx, prefix+"*").Result()
	if err != nil || len(keys) != 1 || !strings.Contains(keys[0], "rl:r:k1:") {
		t.Fatalf("keys = %v, %v", keys, err)
	}
	ttl, err := rdb.PTTL(ctx, keys[0]).Result()
	left := time.Until(w.Add(2 * time.Minute))
	if err != nil || ttl > left+time.Second || ttl < left-5*time.Second {
		t.Fatalf("PTTL = %s (%v), want about %s (the window's rest + 60 s)", ttl, err, left)
	}
}

// TestUnreachableRedisIsAnError: no call silently succeeds when Redis is
// down.
func TestUnreachableRedisIsAnError(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialerRetries: 1, DialTimeout: 200 * time.Millisecond})
	defer rdb.Close()
	c := ratelimitredis.New(rdb, "heddle-test:")
	ctx := context.Background()
	w := time.Now().Truncate(time.Minute)
	if _, err := c.Spent(ctx, "r:k", w); err == nil {
		t.Fatal("Spent succeeded")
	}
	if err := c.Add(ctx, "r:k", w, 1); err == nil {
		t.Fatal("Add succeeded")
	}
	if _, err := c.SpentMany(ctx, w, []string{"r:k"}); err == nil {
		t.Fatal("SpentMany succeeded")
	}
	if n, err := c.AddMany(ctx, []billing.SpendAdd{{Scope: "r:k", PeriodStart: w, Micros: 1}}); err == nil || n != 0 {
		t.Fatalf("AddMany = %d, %v; want 0 and an error", n, err)
	}
}

// roundTrips is a go-redis hook recording each round trip's commands with
// their argument counts.
type roundTrips struct {
	mu    sync.Mutex
	trips [][]redis.Cmder
}

func (r *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (r *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		r.mu.Lock()
		r.trips = append(r.trips, []redis.Cmder{cmd})
		r.mu.Unlock()
		return next(ctx, cmd)
	}
}

func (r *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		r.mu.Lock()
		r.trips = append(r.trips, cmds)
		r.mu.Unlock()
		return next(ctx, cmds)
	}
}

// take returns the round trips recorded since the last take.
func (r *roundTrips) take() [][]redis.Cmder {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.trips
	r.trips = nil
	return t
}

// TestCountersInChunks: 1,200 counters are written in one AddMany and read
// in one SpentMany, each in MULTIs or MGETs of bounded size (one huge
// command would hold Redis for every other client) and one round trip
// per chunk at most; the values and expiries are those of one Add each.
func TestCountersInChunks(t *testing.T) {
	ctx := context.Background()
	r := testdb.NewRedis(t)
	rdb, prefix := r.Client, r.Prefix
	hook := &roundTrips{}
	rdb.AddHook(hook)
	c := ratelimitredis.New(rdb, prefix)
	w := time.Now().UTC().Truncate(time.Minute)
	const n = 1200
	adds := make([]billing.SpendAdd, n)
	scopes := make([]string, n+1)
	for i := range adds {
		adds[i] = billing.SpendAdd{Scope: fmt.Sprintf("r:k%d", i), PeriodStart: w, Micros: int64(i + 1)}
		scopes[i] = adds[i].Scope
	}
	scopes[n] = "r:never"
	hook.take()
	if got, err := c.AddMany(ctx, adds); err != nil || got != n {
		t.Fatalf("AddMany = %d, %v", got, err)
	}
	incrs := 0
	for _, trip := range hook.take() {
		per := 0
		for _, cmd := range trip {
			if cmd.Name() == "incrby" {
				per++
			}
		}
		if per > 256 {
			t.Errorf("one MULTI carried %d INCRBYs; want at most 256", per)
		}
		incrs += per
	}
	if incrs != n {
		t.Fatalf("AddMany sent %d INCRBYs for %d counters", incrs, n)
	}
	got, err := c.SpentMany(ctx, w, scopes)
	if err != nil || len(got) != n {
		t.Fatalf("SpentMany: %d counters, %v", len(got), err)
	}
	for _, a := range adds {
		if got[a.Scope] != a.Micros {
			t.Fatalf("%s = %d, want %d", a.Scope, got[a.Scope], a.Micros)
		}
	}
	trips := hook.take()
	if len(trips) != 1 {
		t.Errorf("SpentMany took %d round trips; want 1", len(trips))
	}
	keys := 0
	for _, trip := range trips {
		for _, cmd := range trip {
			if cmd.Name() != "mget" {
				continue
			}
			if k := len(cmd.Args()) - 1; k > 500 {
				t.Errorf("one MGET of %d keys; want at most 500", k)
			} else {
				keys += k
			}
		}
	}
	if keys != n+1 {
		t.Errorf("the MGETs read %d keys; want %d", keys, n+1)
	}
	ttl, err := rdb.PTTL(ctx, prefix+"rl:r:k1199:"+strconv.FormatInt(w.Unix()/60, 10)).Result()
	if left := time.Until(w.Add(2 * time.Minute)); err != nil || ttl > left+time.Second || ttl < left-5*time.Second {
		t.Fatalf("PTTL = %s (%v), want about %s", ttl, err, left)
	}
}

// TestFlushWithOneBadCounterCountsTheOthersOnce: Redis refuses one counter
// of a MULTI (a key holding no integer) and runs the others; a buffer
// flushing through AddMany keeps retrying only the refused one, so each
// other counter holds its amount once however many flushes fail.
func TestFlushWithOneBadCounterCountsTheOthersOnce(t *testing.T) {
	ctx := context.Background()
	r := testdb.NewRedis(t)
	rdb, prefix := r.Client, r.Prefix
	c := ratelimitredis.New(rdb, prefix)
	w := time.Now().UTC().Truncate(time.Minute)
	if err := rdb.Set(ctx, prefix+"rl:r:b:"+strconv.FormatInt(w.Unix()/60, 10), "not a number", time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	buf := billing.NewSpendBuffer(c, billing.SpendBufferConfig{})
	for _, s := range []string{"r:a", "r:b", "r:c"} {
		_ = buf.Add(ctx, s, w, 5)
	}
	for range 3 {
		if err := buf.Flush(ctx); err == nil {
			t.Fatal("flush over a counter Redis refuses succeeded")
		}
	}
	got, err := c.SpentMany(ctx, w, []string{"r:a", "r:c"})
	if err != nil {
		t.Fatal(err)
	}
	if got["r:a"] != 5 || got["r:c"] != 5 {
		t.Fatalf("after 3 failed flushes r:a = %d, r:c = %d; want 5 each (written once)", got["r:a"], got["r:c"])
	}
}
