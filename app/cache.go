package app

import (
	"fmt"

	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/cacheredis"
)

// wireCache builds the user-scoped response cache: in Redis when
// HEDDLE_REDIS_URL is set (shared by replicas, see redis.go), else in process. The
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
