package idemredis_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// openRedis connects to HEDDLE_TEST_REDIS_URL (default
// redis://127.0.0.1:6379/0) and returns a client and a key prefix unique to
// the test; every key under it is deleted when the test ends. An unreachable
// server fails the test.
func openRedis(t *testing.T) (*redis.Client, string) {
	t.Helper()
	rdb := dial(t)
	b := make([]byte, 6)
	rand.Read(b)
	prefix := "heddle-test:idem:" + hex.EncodeToString(b) + ":"
	t.Cleanup(func() {
		ctx := context.Background()
		iter := rdb.Scan(ctx, 0, prefix+"*", 100).Iterator()
		for iter.Next(ctx) {
			rdb.Del(ctx, iter.Val())
		}
		rdb.Close()
	})
	return rdb, prefix
}

// dial returns a new client to the test Redis; the caller closes it.
func dial(t *testing.T) *redis.Client {
	t.Helper()
	u := os.Getenv("HEDDLE_TEST_REDIS_URL")
	if u == "" {
		u = "redis://127.0.0.1:6379/0"
	}
	opt, err := redis.ParseURL(u)
	if err != nil {
		t.Fatalf("HEDDLE_TEST_REDIS_URL: %v", err)
	}
	rdb := redis.NewClient(opt)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		rdb.Close()
		t.Fatalf("redis unreachable at HEDDLE_TEST_REDIS_URL (%v); start it or set the variable", err)
	}
	return rdb
}

// onlyKey returns the single key under prefix, failing unless there is
// exactly one.
func onlyKey(t *testing.T, rdb *redis.Client, prefix string) string {
	t.Helper()
	keys, err := rdb.Keys(context.Background(), prefix+"*").Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys under prefix = %v, %v; want exactly one", keys, err)
	}
	return keys[0]
}

// keyCount is how many keys live under prefix.
func keyCount(t *testing.T, rdb *redis.Client, prefix string) int {
	t.Helper()
	keys, err := rdb.Keys(context.Background(), prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	return len(keys)
}
