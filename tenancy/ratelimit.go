package tenancy

import (
	"math"
	"sync"
	"time"
)

// Rate is a token bucket: Burst tokens, refilled at PerMinute per minute.
type Rate struct {
	PerMinute float64
	Burst     int
}

type bucket struct {
	tokens float64
	last   time.Time
}

// Limiter is an in-process token bucket per key (one replica's view; a
// shared Redis limiter can replace it later). Safe for concurrent use.
type Limiter struct {
	rate Rate
	max  int
	now  func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

// NewLimiter returns a Limiter holding at most maxKeys buckets (idle full
// buckets are dropped first). now nil means time.Now.
func NewLimiter(rate Rate, maxKeys int, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	if maxKeys <= 0 {
		maxKeys = 100_000
	}
	return &Limiter{rate: rate, max: maxKeys, now: now, buckets: make(map[string]*bucket)}
}

// Allow takes a token for key. When none is left it returns false and how
// long until one is.
func (l *Limiter) Allow(key string) (bool, time.Duration) {
	now := l.now()
	perSec := l.rate.PerMinute / 60
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[key]
	if b == nil {
		if len(l.buckets) >= l.max {
			l.sweep(now, perSec)
		}
		b = &bucket{tokens: float64(l.rate.Burst), last: now}
		l.buckets[key] = b
	}
	b.tokens = math.Min(float64(l.rate.Burst), b.tokens+now.Sub(b.last).Seconds()*perSec)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	if perSec <= 0 {
		return false, time.Hour
	}
	wait := time.Duration((1 - b.tokens) / perSec * float64(time.Second))
	return false, max(wait, time.Second)
}

// sweep drops buckets that have refilled completely; if none has, it drops
// them all (a flood of keys must not grow memory without bound).
func (l *Limiter) sweep(now time.Time, perSec float64) {
	for k, b := range l.buckets {
		if b.tokens+now.Sub(b.last).Seconds()*perSec >= float64(l.rate.Burst) {
			delete(l.buckets, k)
		}
	}
	if len(l.buckets) >= l.max {
		clear(l.buckets)
	}
}
