package app

import (
	"fmt"

	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/cacheredis"
)

// wireCache builds the user-scoped response cache: in Redis when
// HEDDLE_REDIS_URL is set (shared by replicas, see redis.go), else and while
// Redis is down in process. The semantic tier embeds with emb (the router's
// embedder) when HEDDLE_CACHE_SEMANTIC is on; otherwise the cache has the
// exact tier only and never embeds.
func (c *components) wireCache(emb routing.Embedder) (*routing.Cache, error) {
	if c.cfg.CacheDisabled {
		return nil, nil
	}
	if c.cfg.CacheSemantic != "on" {
		emb = nil
	}
	cache, err := routing.NewCache(c.cacheStore(), emb, routing.CacheConfig{TTL: c.cfg.CacheTTL, Threshold: c.cfg.CacheThreshold})
	if err != nil {
		return nil, fmt.Errorf("app: cache: %w", err)
	}
	return cache, nil
}

// cacheStore is the cache's store: Redis (with the in-process store while
// Redis is down) when HEDDLE_REDIS_URL is set, else in process.
func (c *components) cacheStore() routing.CacheStore {
	var local routing.CacheStore = routing.NewMemoryCacheStore(10000, 256<<20, nil)
	if c.redisLink == nil {
		return local
	}
	return fallbackCache{link: c.redisLink, remote: cacheredis.New(c.redis, "heddle:cache:"), local: local}
}
