package idemredis_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
)

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
