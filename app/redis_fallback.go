package app

import (
	"context"
	"time"

	"github.com/heddle-gw/heddle/admission"
	"github.com/heddle-gw/heddle/billing"
	billingsql "github.com/heddle-gw/heddle/billing/sqlstore"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/tenancy/ratelimitredis"
)

// fallbackCounters keeps the key rate-limit counters in Redis while it
// answers and in the app database (rate_counters) otherwise, so limits stay
// shared by the replicas through a Redis outage. Counts made on one side are
// not seen on the other: across a switch a key can be admitted up to its
// limit once more in that minute.
type fallbackCounters struct {
	link   *redisLink
	remote *ratelimitredis.Counters
	local  *billingsql.Store
}

var (
	_ billing.SpentManyReader = fallbackCounters{}
	_ billing.ManyAdder       = fallbackCounters{}
	_ admission.Sweeper       = fallbackCounters{}
)

func (f fallbackCounters) Spent(ctx context.Context, scope string, start time.Time) (int64, error) {
	return via(ctx, f.link,
		func() (int64, error) { return f.remote.Spent(ctx, scope, start) },
		func() (int64, error) { return f.local.Spent(ctx, scope, start) })
}

func (f fallbackCounters) Add(ctx context.Context, scope string, start time.Time, n int64) error {
	_, err := via(ctx, f.link,
		func() (struct{}, error) { return struct{}{}, f.remote.Add(ctx, scope, start, n) },
		func() (struct{}, error) { return struct{}{}, f.local.Add(ctx, scope, start, n) })
	return err
}

// AddMany writes to Redis while it answers; when it stops answering part
// way, the counters it did not take go to the app database.
func (f fallbackCounters) AddMany(ctx context.Context, adds []billing.SpendAdd) (int, error) {
	done := 0
	return via(ctx, f.link,
		func() (int, error) {
			n, err := f.remote.AddMany(ctx, adds)
			done = n
			return n, err
		},
		func() (int, error) {
			n, err := f.local.AddMany(ctx, adds[done:])
			return done + n, err
		})
}

func (f fallbackCounters) SpentMany(ctx context.Context, start time.Time, scopes []string) (map[string]int64, error) {
	return via(ctx, f.link,
		func() (map[string]int64, error) {
			return f.remote.SpentMany(ctx, start, scopes)
		},
		func() (map[string]int64, error) {
			return f.local.SpentMany(ctx, start, scopes)
		})
}

// Sweep deletes the app database's past windows (Redis expires its own).
func (f fallbackCounters) Sweep(ctx context.Context, before time.Time) error {
	return f.local.Sweep(ctx, before)
}

// fallbackCache is the Redis response cache while Redis answers and an
// in-process one otherwise.
type fallbackCache struct {
	link          *redisLink
	remote, local routing.CacheStore
}

// hit carries a cache lookup through via.
type hit struct {
	value []byte
	ok    bool
}

func (f fallbackCache) Get(ctx context.Context, key string) ([]byte, bool, error) {
	h, err := via(ctx, f.link,
		func() (hit, error) { v, ok, err := f.remote.Get(ctx, key); return hit{v, ok}, err },
		func() (hit, error) { v, ok, err := f.local.Get(ctx, key); return hit{v, ok}, err })
	return h.value, h.ok, err
}

func (f fallbackCache) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	_, err := via(ctx, f.link,
		func() (struct{}, error) { return struct{}{}, f.remote.Set(ctx, key, value, ttl) },
		func() (struct{}, error) { return struct{}{}, f.local.Set(ctx, key, value, ttl) })
	return err
}

func (f fallbackCache) Neighbors(ctx context.Context, partition string) ([]routing.Neighbor, error) {
	return via(ctx, f.link,
		func() ([]routing.Neighbor, error) { return f.remote.Neighbors(ctx, partition) },
		func() ([]routing.Neighbor, error) { return f.local.Neighbors(ctx, partition) })
}

func (f fallbackCache) AddNeighbor(ctx context.Context, partition string, n routing.Neighbor, ttl time.Duration, max int) error {
	_, err := via(ctx, f.link,
		func() (struct{}, error) { return struct{}{}, f.remote.AddNeighbor(ctx, partition, n, ttl, max) },
		func() (struct{}, error) { return struct{}{}, f.local.AddNeighbor(ctx, partition, n, ttl, max) })
	return err
}

// fallbackIdempotency is the Redis idempotency store while Redis answers and
// an in-process one otherwise (deduplication then per replica).
type fallbackIdempotency struct {
	link          *redisLink
	remote, local dispatch.Idempotency
}

func (f fallbackIdempotency) Begin(ctx context.Context, key, fp string, stream bool) (dispatch.Claim, error) {
	return via(ctx, f.link,
		func() (dispatch.Claim, error) { return f.remote.Begin(ctx, key, fp, stream) },
		func() (dispatch.Claim, error) { return f.local.Begin(ctx, key, fp, stream) })
}
