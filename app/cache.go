package app

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/cacheredis"
)

// wireCache builds the user-scoped response cache: in Redis when
// HEDDLE_REDIS_URL is set (shared by replicas, see openRedis), else in process. The
// semantic tier embeds with emb (the router's embedder).
func (c *components) wireCache(emb routing.Embedder) (*routing.Cache, error) {
	if c.cfg.CacheDisabled {
		return nil, nil
	}
	var store routing.CacheStore
	if c.redis != nil {
		store = cacheredis.New(c.redis, "heddle:cache:")
	} else {
		store = routing.NewMemoryCacheStore(10000, 256<<20, nil)
	}
	cache, err := routing.NewCache(store, emb, routing.CacheConfig{TTL: c.cfg.CacheTTL, Threshold: c.cfg.CacheThreshold})
	if err != nil {
		return nil, fmt.Errorf("app: cache: %w", err)
	}
	return cache, nil
}

// openRedis connects to HEDDLE_REDIS_URL when set: a short dial timeout and
// one dial retry, so a dead Redis fails requests fast (closed) rather than
// slowly.
func (c *components) openRedis() error {
	if c.cfg.RedisURL == "" {
		return nil
	}
	opts, err := redis.ParseURL(c.cfg.RedisURL)
	if err != nil {
		return fmt.Errorf("HEDDLE_REDIS_URL: %w", err)
	}
	opts.DialTimeout, opts.DialerRetries = time.Second, 1
	rdb := redis.NewClient(opts)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		_ = rdb.Close()
		return fmt.Errorf("app: redis: %w", err)
	}
	c.redis = rdb
	return nil
}
