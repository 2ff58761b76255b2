package app

import (
	"context"
	"time"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/routing"
)

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
