package ratelimitredis

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heddle-gw/heddle/billing"
)

// Counters is the counter store of key rate limits in Redis: a
// billing.SpendStore (and SpentManyReader) whose scopes are rate-limit
// counters and whose periods are one-minute windows, as
// admission.RateCounters uses it. Safe for concurrent use.
type Counters struct {
	rdb    redis.UniversalClient
	prefix string
	now    func() time.Time
}

var (
	_ billing.SpendStore      = (*Counters)(nil)
	_ billing.SpentManyReader = (*Counters)(nil)
)

// New returns Counters whose keys all start with prefix (for example
// "heddle:").
func New(rdb redis.UniversalClient, prefix string) *Counters {
	return &Counters{rdb: rdb, prefix: prefix, now: time.Now}
}

// key names the Redis key of one counter in the window starting at start:
// <prefix>rl:<scope>:<unix minute> (scope "r:<key id>" or "t:<key id>").
func (c *Counters) key(scope string, start time.Time) string {
	return c.prefix + "rl:" + scope + ":" + strconv.FormatInt(start.Unix()/60, 10)
}

// ttl keeps a counter until a minute after its window ends, which covers
// replicas whose clocks disagree by less than that.
func ttl(start, now time.Time) time.Duration { return start.Add(time.Minute).Sub(now) + time.Minute }

// Spent returns a counter's value; one never written is 0.
func (c *Counters) Spent(ctx context.Context, scope string, start time.Time) (int64, error) {
	n, err := c.rdb.Get(ctx, c.key(scope, start)).Int64()
	if err == redis.Nil {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("ratelimitredis: get: %w", err)
	}
	return n, nil
}

// Add adds n to a counter and sets its expiry, in one MULTI.
func (c *Counters) Add(ctx context.Context, scope string, start time.Time, n int64) error {
	k := c.key(scope, start)
	_, err := c.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.IncrBy(ctx, k, n)
		p.PExpire(ctx, k, max(ttl(start, c.now()), time.Second))
		return nil
	})
	if err != nil {
		return fmt.Errorf("ratelimitredis: add: %w", err)
	}
	return nil
}

// SpentMany reads the counters of scopes in one window with one MGET.
func (c *Counters) SpentMany(ctx context.Context, start time.Time, scopes []string) (map[string]int64, error) {
	if len(scopes) == 0 {
		return map[string]int64{}, nil
	}
	keys := make([]string, len(scopes))
	for i, s := range scopes {
		keys[i] = c.key(s, start)
	}
	vals, err := c.rdb.MGet(ctx, keys...).Result()
	if err != nil {
		return nil, fmt.Errorf("ratelimitredis: mget: %w", err)
	}
	out := make(map[string]int64, len(scopes))
	for i, v := range vals {
		s, ok := v.(string)
		if !ok {
			continue // nil: never written (or expired)
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("ratelimitredis: counter %s: %w", keys[i], err)
		}
		out[scopes[i]] = n
	}
	return out, nil
}
