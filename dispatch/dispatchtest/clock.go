package dispatchtest

import (
	"context"
	"sync"
	"time"

	"github.com/heddle-gw/heddle/dispatch"
)

// Clock is a fake dispatch.Clock. Now starts at a fixed instant and moves only
// when something sleeps on it or Advance is called, so backoff is instant and
// its bounds are exact. Timers (After, AfterFunc) run on the wall clock, so
// first-byte and idle timeouts still fire against a real upstream.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

var _ dispatch.Clock = (*Clock)(nil)

// NewClock returns a fake clock at 2026-01-02T03:04:05Z.
func NewClock() *Clock {
	return &Clock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

// Now returns the fake time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep records d and advances the fake time by it at once, unless ctx is done.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	return nil
}

// Advance moves the fake time forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Sleeps returns every duration slept so far, in order.
func (c *Clock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// After runs on the wall clock.
func (c *Clock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// AfterFunc runs on the wall clock.
func (c *Clock) AfterFunc(d time.Duration, f func()) dispatch.Timer { return time.AfterFunc(d, f) }

// Rand is a fixed dispatch.Rand.
type Rand float64

// Float64 returns r.
func (r Rand) Float64() float64 { return float64(r) }
