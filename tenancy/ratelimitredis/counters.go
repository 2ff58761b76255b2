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
	_ billing.ManyAdder       = (*Counters)(nil)
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

// addManyChunk bounds the counters of one MULTI in AddMany.
const addManyChunk = 256

// AddMany adds to many counters (and sets their expiry), one MULTI per 256
// of them, in the order given; it returns how many were written before an
// error, having moved those Redis applied in the failed MULTI to its front.
func (c *Counters) AddMany(ctx context.Context, adds []billing.SpendAdd) (int, error) {
	done := 0
	for done < len(adds) {
		chunk := adds[done:min(len(adds), done+addManyChunk)]
		now := c.now()
		incrs := make([]*redis.IntCmd, len(chunk))
		_, err := c.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			for i, a := range chunk {
				k := c.key(a.Scope, a.PeriodStart)
				incrs[i] = p.IncrBy(ctx, k, a.Micros)
				p.PExpire(ctx, k, max(ttl(a.PeriodStart, now), time.Second))
			}
			return nil
		})
		if err != nil {
			// Redis runs the rest of a MULTI when one command fails (a key
			// holding no integer): the INCRBYs that answered were applied.
			// They go first, so the caller retries only the others.
			applied := 0
			for i, cmd := range incrs {
				if cmd.Err() == nil {
					chunk[applied], chunk[i] = chunk[i], chunk[applied]
					applied++
				}
			}
			return done + applied, fmt.Errorf("ratelimitredis: add %d counters: %w", len(chunk)-applied, err)
		}
		done += len(chunk)
	}
	return done, nil
}

// mgetChunk bounds the keys of one MGET, so a replica checking many keys
// never sends Redis one huge command that blocks it for everyone.
const mgetChunk = 500

// SpentMany reads the counters of scopes in one window: one MGET per 500,
// all sent in one pipeline.
func (c *Counters) SpentMany(ctx context.Context, start time.Time, scopes []string) (map[string]int64, error) {
	out := make(map[string]int64, len(scopes))
	if len(scopes) == 0 {
		return out, nil
	}
	keys := make([]string, len(scopes))
	for i, s := range scopes {
		keys[i] = c.key(s, start)
	}
	var cmds []*redis.SliceCmd
	_, err := c.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i := 0; i < len(keys); i += mgetChunk {
			cmds = append(cmds, p.MGet(ctx, keys[i:min(len(keys), i+mgetChunk)]...))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("ratelimitredis: mget: %w", err)
	}
	i := 0
	for _, cmd := range cmds {
		for _, v := range cmd.Val() {
			if s, ok := v.(string); ok { // nil: never written (or expired)
				n, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("ratelimitredis: counter %s: %w", keys[i], err)
				}
				out[scopes[i]] = n
			}
			i++
		}
	}
	if i != len(keys) {
		return nil, fmt.Errorf("ratelimitredis: mget answered %d of %d keys", i, len(keys))
	}
	return out, nil
}
