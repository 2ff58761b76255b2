// Package ttlcache is a read-through cache with a time to live, keyed by
// string: every per-organisation cache of settings read on the request path
// (budgets, content opt-in, tenant models, routing settings, credential
// providers) is one. A read that overlaps an Invalidate (of any key) is
// returned but not cached, since it may predate the change; a failed read
// caches nothing and is never replaced by a stale value.
//
// Ring: generic helper under internal (no I/O, imports nothing of ours); any
// ring may use it.
package ttlcache

import (
	"context"
	"sync"
	"time"
)

// Cache holds one value per key (an organisation id). Safe for concurrent
// use.
type Cache[V any] struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu  sync.Mutex
	m   map[string]entry[V]
	gen uint64 // Invalidate calls
}

type entry[V any] struct {
	v       V
	expires time.Time
}

// New returns a cache keeping values for ttl, at most max keys (when full,
// it starts empty again; max <= 0 means 10000). now is the clock (time.Now
// when nil).
func New[V any](ttl time.Duration, max int, now func() time.Time) *Cache[V] {
	if max <= 0 {
		max = 10000
	}
	if now == nil {
		now = time.Now
	}
	return &Cache[V]{ttl: ttl, max: max, now: now, m: map[string]entry[V]{}}
}

// Get returns key's value while it is younger than the TTL, else load's,
// which it caches unless Invalidate(key) or another invalidation ran while
// load did. load's error is returned as is.
func (c *Cache[V]) Get(ctx context.Context, key string, load func(context.Context) (V, error)) (V, error) {
	now := c.now()
	c.mu.Lock()
	e, ok := c.m[key]
	gen := c.gen
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.v, nil
	}
	v, err := load(ctx)
	if err != nil {
		var zero V
		return zero, err
	}
	c.mu.Lock()
	if c.gen == gen {
		if len(c.m) >= c.max {
			clear(c.m)
		}
		c.m[key] = entry[V]{v: v, expires: now.Add(c.ttl)}
	}
	c.mu.Unlock()
	return v, nil
}

// InvalidateAll drops every value (a change that concerns every key, such
// as an edit of a plan many organisations share).
func (c *Cache[V]) InvalidateAll() {
	c.mu.Lock()
	clear(c.m)
	c.gen++
	c.mu.Unlock()
}

// Invalidate drops key's value: the next Get loads it.
func (c *Cache[V]) Invalidate(key string) {
	c.mu.Lock()
	delete(c.m, key)
	c.gen++
	c.mu.Unlock()
}
