package ratelimitredis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heddle-gw/heddle/tenancy"
)

// Limiter is a tenancy.KeyLimiter over Redis. Safe for concurrent use.
type Limiter struct {
	rdb    redis.UniversalClient
	prefix string
}

var _ tenancy.KeyLimiter = (*Limiter)(nil)

// New returns a Limiter whose keys all start with prefix (for example
// "heddle:").
func New(rdb redis.UniversalClient, prefix string) *Limiter {
	return &Limiter{rdb: rdb, prefix: prefix}
}

// counter names the Redis key of one key's requests ("r") or tokens ("t") in
// the window starting at start: <prefix>rl:<kind>:<keyID>:<unix minute>.
func (l *Limiter) counter(kind, keyID string, start time.Time) string {
	return l.prefix + "rl:" + kind + ":" + keyID + ":" + strconv.FormatInt(start.Unix()/60, 10)
}

// ttl keeps a counter until a minute after its window ends, which covers
// replicas whose clocks disagree by less than that.
func ttl(end, now time.Time) time.Duration { return end.Sub(now) + time.Minute }

func unavailable(op string, err error) error {
	return fmt.Errorf("ratelimitredis: %s: %w: %w", op, tenancy.ErrLimiterUnavailable, err)
}

// incr adds n to a counter and sets its expiry in one MULTI, returning the
// new value.
func (l *Limiter) incr(ctx context.Context, key string, n int64, expire time.Duration) (int64, error) {
	var v *redis.IntCmd
	_, err := l.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		v = p.IncrBy(ctx, key, n)
		p.PExpire(ctx, key, expire)
		return nil
	})
	if err != nil {
		return 0, err
	}
	return v.Val(), nil
}

// Allow counts the request in keyID's window and refuses it when the window
// now holds more than rpm. Refused requests are counted too; that changes no
// later answer in the same window, and the count starts over with the next.
func (l *Limiter) Allow(ctx context.Context, keyID string, rpm int, now time.Time) (bool, time.Duration, error) {
	if rpm <= 0 {
		return true, 0, nil
	}
	start, end := tenancy.MinuteWindow(now)
	n, err := l.incr(ctx, l.counter("r", keyID, start), 1, ttl(end, now))
	if err != nil {
		return false, 0, unavailable("allow", err)
	}
	if n > int64(rpm) {
		return false, end.Sub(now), nil
	}
	return true, 0, nil
}

// AddTokens adds tokens to keyID's window containing now; zero or less adds
// nothing.
func (l *Limiter) AddTokens(ctx context.Context, keyID string, tokens int, now time.Time) error {
	if tokens <= 0 {
		return nil
	}
	start, end := tenancy.MinuteWindow(now)
	if _, err := l.incr(ctx, l.counter("t", keyID, start), int64(tokens), ttl(end, now)); err != nil {
		return unavailable("add tokens", err)
	}
	return nil
}

// TokensOK reports whether keyID used fewer than tpm tokens in the window
// containing now.
func (l *Limiter) TokensOK(ctx context.Context, keyID string, tpm int, now time.Time) (bool, time.Duration, error) {
	if tpm <= 0 {
		return true, 0, nil
	}
	start, end := tenancy.MinuteWindow(now)
	n, err := l.rdb.Get(ctx, l.counter("t", keyID, start)).Int64()
	if errors.Is(err, redis.Nil) {
		return true, 0, nil
	}
	if err != nil {
		return false, 0, unavailable("tokens", err)
	}
	if n >= int64(tpm) {
		return false, end.Sub(now), nil
	}
	return true, 0, nil
}
