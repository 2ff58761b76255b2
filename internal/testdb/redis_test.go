package testdb_test

import (
	"context"
	"testing"

	"github.com/heddle-gw/heddle/internal/testdb"
)

// TestRedisPrefixesAreTheTestsOwn: two tests' prefixes differ, a second
// client sees what the first wrote, and the keys under a prefix (and those
// registered with DeleteWhenDone) are gone once the test ended.
func TestRedisPrefixesAreTheTestsOwn(t *testing.T) {
	ctx := context.Background()
	var a, b testdb.Redis
	t.Run("a", func(t *testing.T) {
		a = testdb.NewRedis(t)
		if err := a.Client.Set(ctx, a.Prefix+"k", "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
		if err := a.Client.Set(ctx, "heddle:rl:"+a.ID, "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
		a.DeleteWhenDone(t, "heddle:rl:"+a.ID)
		if v, err := testdb.DialRedis(t).Get(ctx, a.Prefix+"k").Result(); err != nil || v != "v" {
			t.Fatalf("another client reads %q, %v", v, err)
		}
	})
	t.Run("b", func(t *testing.T) { b = testdb.NewRedis(t) })
	if a.Prefix == b.Prefix || a.ID == "" || a.Addr != testdb.RedisAddr(t) {
		t.Fatalf("prefixes %q %q, addr %q", a.Prefix, b.Prefix, a.Addr)
	}
	rdb := testdb.DialRedis(t)
	for _, k := range []string{a.Prefix + "k", "heddle:rl:" + a.ID} {
		if n, err := rdb.Exists(ctx, k).Result(); err != nil || n != 0 {
			t.Fatalf("%s still exists after the test (%d, %v)", k, n, err)
		}
	}
}
