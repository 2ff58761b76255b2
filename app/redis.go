package app

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// openRedis connects to HEDDLE_REDIS_URL when set: a short dial timeout and
// one dial retry, so a dead Redis fails requests fast (closed) rather than
// slowly.
func (c *components) openRedis() error {
	if c.cfg.RedisURL == "" {
		return nil
	}
	opts, err := redis.ParseURL(c.cfg.RedisURL)
	if err != nil {
		return fmt.Errorf("HEDDLE_REDIS_URL: %w", err)
	}
	opts.DialTimeout, opts.DialerRetries = time.Second, 1
	rdb := redis.NewClient(opts)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		_ = rdb.Close()
		return fmt.Errorf("app: redis: %w", err)
	}
	c.redis = rdb
	return nil
}
