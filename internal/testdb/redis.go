package testdb

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// envRedisURL names the variable holding the URL of the test Redis;
// defaultRedisURL is used when it is empty.
const (
	envRedisURL     = "HEDDLE_TEST_REDIS_URL"
	defaultRedisURL = "redis://127.0.0.1:6379/0"
)

// Redis is one test's share of the test Redis, which sessions and packages
// running at the same time share: every key a test writes lives under its
// own Prefix (or, for code with fixed key names, contains its ID), and is
// deleted when the test ends.
type Redis struct {
	// Client is connected (pinged) and closed when the test ends.
	Client *redis.Client
	// Addr is the server's host:port.
	Addr string
	// ID is random, unique to the test: for names inside keys the code
	// under test prefixes itself.
	ID string
	// Prefix is "heddle-test:<ID>:"; every key under it is deleted when
	// the test ends.
	Prefix string
}

// NewRedis connects to HEDDLE_TEST_REDIS_URL (default
// redis://127.0.0.1:6379/0) and gives t a fresh prefix. An unreachable
// server fails the test, never skips it.
func NewRedis(t testing.TB) Redis {
	t.Helper()
	r := Redis{Client: DialRedis(t), ID: randomHex(6)}
	r.Addr, r.Prefix = r.Client.Options().Addr, "heddle-test:"+r.ID+":"
	r.DeleteWhenDone(t, r.Prefix+"*")
	return r
}

// DialRedis returns another client to the test Redis (a second replica),
// closed when t ends. An unreachable server fails the test.
func DialRedis(t testing.TB) *redis.Client {
	t.Helper()
	u := redisURL()
	opt, err := redis.ParseURL(u)
	if err != nil {
		t.Fatalf("%s: %v", envRedisURL, err)
	}
	rdb := redis.NewClient(opt)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		_ = rdb.Close()
		t.Fatalf("redis unreachable at %s=%s (%v); start it or set the variable", envRedisURL, u, err)
	}
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// RedisAddr is the test Redis's host:port, without connecting (a test that
// starts with Redis behind a closed gate).
func RedisAddr(t testing.TB) string {
	t.Helper()
	opt, err := redis.ParseURL(redisURL())
	if err != nil {
		t.Fatalf("%s: %v", envRedisURL, err)
	}
	return opt.Addr
}

// DeleteWhenDone deletes the keys matching pattern when t ends (before the
// client closes), for keys outside Prefix that carry the test's ID.
func (r Redis) DeleteWhenDone(t testing.TB, pattern string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		iter := r.Client.Scan(ctx, 0, pattern, 100).Iterator()
		for iter.Next(ctx) {
			if err := r.Client.Del(ctx, iter.Val()).Err(); err != nil {
				t.Errorf("delete test key %s: %v", iter.Val(), err)
			}
		}
		if err := iter.Err(); err != nil {
			t.Errorf("scan test keys %s: %v", pattern, err)
		}
	})
}

func redisURL() string {
	if u := os.Getenv(envRedisURL); u != "" {
		return u
	}
	return defaultRedisURL
}
