package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisProbeInterval is how often the Redis link is pinged: how soon a
// replica notices Redis went away (between requests) or came back.
const redisProbeInterval = time.Second

// redisLink is the shared Redis connection and whether it answers. Heddle
// starts without Redis and keeps serving while it is down: the rate
// limiter, idempotency store and response cache then fall back to their
// in-process versions (limits and deduplication per replica, a cold cache)
// and return to Redis once a probe answers.
type redisLink struct {
	rdb    *redis.Client
	log    *slog.Logger
	up     atomic.Bool
	probed atomic.Bool // a first state was recorded
}

// openRedis connects to HEDDLE_REDIS_URL when set: a short dial timeout and
// one dial retry, so that a dead Redis costs a request little before the
// fallbacks take over. It fails only on a malformed URL; an unreachable
// Redis is logged and probed every redisProbeInterval until ctx ends.
func (c *components) openRedis(ctx context.Context) error {
	if c.cfg.RedisURL == "" {
		return nil
	}
	opts, err := redis.ParseURL(c.cfg.RedisURL)
	if err != nil {
		return fmt.Errorf("HEDDLE_REDIS_URL: %w", err)
	}
	opts.DialTimeout, opts.DialerRetries = time.Second, 1
	opts.MaxRetries = 1
	l := &redisLink{rdb: redis.NewClient(opts), log: c.logger.With("component", "redis")}
	l.probe(ctx)
	go l.watch(ctx)
	c.redis, c.redisLink = l.rdb, l
	return nil
}

// probe pings once and records the answer, logging a change of state.
func (l *redisLink) probe(ctx context.Context) {
	pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := l.rdb.Ping(pctx).Err(); err != nil {
		if ctx.Err() == nil { // not our own shutdown
			l.failed(err)
		}
		return
	}
	if !l.up.Swap(true) && l.probed.Swap(true) {
		l.log.Info("redis reachable again: shared rate limits, idempotency and cache resumed")
	}
}

// failed marks the link down after err (a ping or a command that could not
// reach Redis).
func (l *redisLink) failed(err error) {
	first := !l.probed.Swap(true)
	if l.up.Swap(false) || first {
		l.log.Warn("redis unreachable: in-process rate limits, idempotency and cache until it answers", "err", err)
	}
}

// watch probes until ctx ends.
func (l *redisLink) watch(ctx context.Context) {
	t := time.NewTicker(redisProbeInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			l.probe(ctx)
		}
	}
}

// healthy reports whether Redis answered the last probe or command.
func (l *redisLink) healthy() bool { return l.up.Load() }

// unreachable reports whether err says Redis could not be reached (rather
// than a refusal, a mismatch or the caller's own cancellation).
func unreachable(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil {
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, redis.ErrClosed) || errors.Is(err, redis.ErrPoolTimeout) || errors.Is(err, redis.ErrPoolExhausted)
}

// via runs remote while the link is up and local otherwise, or when remote
// could not reach Redis (the link is then marked down until a probe
// answers).
func via[T any](ctx context.Context, l *redisLink, remote, local func() (T, error)) (T, error) {
	if l.up.Load() {
		v, err := remote()
		if !unreachable(ctx, err) {
			return v, err
		}
		l.failed(err)
	}
	return local()
}
