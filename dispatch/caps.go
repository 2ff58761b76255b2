package dispatch

import (
	"context"
	"sync"
	"time"
)

// caps bounds concurrency per key (an organisation, or a target and credential)
// with a bounded wait for a free slot.
type caps struct {
	limit int
	wait  time.Duration
	clock Clock
	mu    sync.Mutex
	slots map[string]chan struct{}
}

func newCaps(limit int, wait time.Duration, clock Clock) *caps {
	return &caps{limit: limit, wait: wait, clock: clock, slots: make(map[string]chan struct{})}
}

func (c *caps) sem(key string) chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.slots[key]
	if s == nil {
		s = make(chan struct{}, c.limit)
		c.slots[key] = s
	}
	return s
}

// acquire takes a slot for key, waiting at most the configured wait. It
// returns the release func, ErrOverloaded when the wait ended, or ctx's error.
func (c *caps) acquire(ctx context.Context, key string) (func(), error) {
	s := c.sem(key)
	release := func() { <-s }
	select {
	case s <- struct{}{}:
		return release, nil
	default:
	}
	select {
	case s <- struct{}{}:
		return release, nil
	case <-c.clock.After(c.wait):
		return nil, ErrOverloaded
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
