package dispatch

import (
	"context"
	"sync"
	"time"
)

// caps bounds concurrency per key (an organisation, or a target and
// credential) with a bounded wait for a free slot. Waiters are served fairly:
// FIFO within a tenant (the organisation waiting) and round-robin between
// tenants, so when a binding's cap binds, one organisation's burst cannot
// starve another's requests on the same binding.
type caps struct {
	limit int // the default limit per key
	wait  time.Duration
	clock Clock
	mu    sync.Mutex
	slots map[string]*slotSet
	// waited, when set, is told of each wait that did not get a slot at once
	// (Deps.CapWait).
	waited func(d time.Duration, acquired bool)
}

// slotSet is one key's slots in use and its waiters. It lives while a slot
// is in use or a waiter waits, so on a busy key every acquire shares it and
// its release func.
type slotSet struct {
	inUse   int
	limit   int
	queues  map[string][]*capWaiter // per tenant, FIFO (nil until one waits)
	ring    []string                // tenants with waiters, served in turn
	release func()                  // frees one slot of the key (caps.release)
}

// capWaiter is one acquire waiting for a slot; granted is set (under
// caps.mu) when a release hands it the slot, and then ch is closed.
type capWaiter struct {
	ch      chan struct{}
	granted bool
}

func newCaps(limit int, wait time.Duration, clock Clock) *caps {
	return &caps{limit: limit, wait: wait, clock: clock, slots: make(map[string]*slotSet)}
}

// acquire takes a slot for key on behalf of tenant, waiting at most the
// configured wait. limit is the key's cap (<= 0: the default); the last
// value given applies to every holder of key. It returns the release func,
// ErrOverloaded when the wait ended, or ctx's error.
func (c *caps) acquire(ctx context.Context, key, tenant string, limit int) (func(), error) {
	if limit <= 0 {
		limit = c.limit
	}
	c.mu.Lock()
	s := c.slots[key]
	if s == nil {
		s = &slotSet{release: func() { c.release(key) }}
		c.slots[key] = s
	}
	release := s.release
	s.limit = limit
	if s.inUse < s.limit && len(s.ring) == 0 {
		s.inUse++
		c.mu.Unlock()
		return release, nil
	}
	w := &capWaiter{ch: make(chan struct{})}
	if s.queues == nil {
		s.queues = map[string][]*capWaiter{}
	}
	if len(s.queues[tenant]) == 0 {
		s.ring = append(s.ring, tenant)
	}
	s.queues[tenant] = append(s.queues[tenant], w)
	s.grant() // a raised limit frees slots for the queue
	c.mu.Unlock()

	start := c.clock.Now()
	var err error
	select {
	case <-w.ch:
		c.report(start, true)
		return release, nil
	case <-c.clock.After(c.wait):
		err = ErrOverloaded
	case <-ctx.Done():
		err = ctx.Err()
	}
	c.mu.Lock()
	if w.granted {
		// A release handed over the slot as the wait ended: keep it.
		c.mu.Unlock()
		c.report(start, true)
		return release, nil
	}
	s.remove(tenant, w)
	if s.inUse <= 0 && len(s.ring) == 0 && c.slots[key] == s {
		delete(c.slots, key)
	}
	c.mu.Unlock()
	if err == ErrOverloaded {
		c.report(start, false)
	}
	return nil, err
}

// release frees one slot of key, handing it to the next waiter in turn.
func (c *caps) release(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.slots[key]
	if s == nil {
		return
	}
	s.inUse--
	s.grant()
	if s.inUse <= 0 && len(s.ring) == 0 {
		delete(c.slots, key)
	}
}

// grant hands free slots to waiters, one tenant at a time in turn.
func (s *slotSet) grant() {
	for s.inUse < s.limit && len(s.ring) > 0 {
		t := s.ring[0]
		q := s.queues[t]
		w := q[0]
		if len(q) == 1 {
			delete(s.queues, t)
			s.ring = s.ring[1:]
		} else {
			s.queues[t] = q[1:]
			s.ring = append(s.ring[1:], t)
		}
		s.inUse++
		w.granted = true
		close(w.ch)
	}
}

// remove drops a waiter that gave up.
func (s *slotSet) remove(tenant string, w *capWaiter) {
	q := s.queues[tenant]
	for i := range q {
		if q[i] != w {
			continue
		}
		q = append(q[:i:i], q[i+1:]...)
		break
	}
	if len(q) > 0 {
		s.queues[tenant] = q
		return
	}
	delete(s.queues, tenant)
	for i, t := range s.ring {
		if t == tenant {
			s.ring = append(s.ring[:i:i], s.ring[i+1:]...)
			break
		}
	}
}

func (c *caps) report(start time.Time, acquired bool) {
	if c.waited != nil {
		c.waited(c.clock.Now().Sub(start), acquired)
	}
}

// waiting returns how many acquires wait on key.
func (c *caps) waiting(key string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	if s := c.slots[key]; s != nil {
		for _, q := range s.queues {
			n += len(q)
		}
	}
	return n
}
