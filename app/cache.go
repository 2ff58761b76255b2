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
// HEDDLE_REDIS_URL is set (shared by replicas), else in process. The
// semantic tier embeds with emb (the router's embedder).
func (c *components) wireCache(emb routing.Embedder) (*routing.Cache, error) {
	if c.cfg.CacheDisabled {
		return nil, nil
	}
	var store routing.CacheStore
	if c.cfg.RedisURL != "" {
		opts, err := redis.ParseURL(c.cfg.RedisURL)
		if err != nil {
			return nil, fmt.Errorf("HEDDLE_REDIS_URL: %w", err)
		}
		rdb := redis.NewClient(opts)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := rdb.Ping(ctx).Err(); err != nil {
			_ = rdb.Close()
			return nil, fmt.Errorf("app: redis: %w", err)
		}
		c.redis = rdb
		store = cacheredis.New(rdb, "heddle:cache:")
	} else {
		store = routing.NewMemoryCacheStore(10000, 256<<20, nil)
	}
	cache, err := routing.NewCache(store, emb, routing.CacheConfig{TTL: c.cfg.CacheTTL, Threshold: c.cfg.CacheThreshold})
	if err != nil {
		return nil, fmt.Errorf("app: cache: %w", err)
	}
	return cache, nil
}
