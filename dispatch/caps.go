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
	// waited, when set, is told of each wait that did not get a slot at once
	// (Deps.CapWait).
	waited func(d time.Duration, acquired bool)
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
	start := c.clock.Now()
	select {
	case s <- struct{}{}:
		c.report(start, true)
		return release, nil
	case <-c.clock.After(c.wait):
		c.report(start, false)
		return nil, ErrOverloaded
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *caps) report(start time.Time, acquired bool) {
	if c.waited != nil {
		c.waited(c.clock.Now().Sub(start), acquired)
	}
}
