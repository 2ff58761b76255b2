package dispatchtest

import (
	"context"
	"sync"
	"time"

	"github.com/heddle-gw/heddle/dispatch"
)

// Clock is a fake dispatch.Clock. Sleep returns at once, records its duration
// and moves the clock forward by it, so backoff costs no time and its bounds
// are exact. Now is a fixed start plus everything slept or advanced plus the
// real time elapsed since NewClock, so latencies stay real. Timers (After,
// AfterFunc) run on the wall clock, so first-byte and idle timeouts still fire
// against a real upstream.
type Clock struct {
	mu      sync.Mutex
	start   time.Time
	created time.Time
	skipped time.Duration
	sleeps  []time.Duration
}

var _ dispatch.Clock = (*Clock)(nil)

// NewClock returns a fake clock at 2026-01-02T03:04:05Z.
func NewClock() *Clock {
	return &Clock{start: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), created: time.Now()}
}

// Start is the clock's first instant.
func (c *Clock) Start() time.Time { return c.start }

// Now returns the fake time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.start.Add(c.skipped + time.Since(c.created))
}

// Sleep records d and advances the fake time by it at once, unless ctx is done.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	c.skipped += d
	return nil
}

// Advance moves the fake time forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.skipped += d
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
