package app

import (
	"context"
	"log/slog"
	"testing"
	"time"

	billingsql "github.com/heddle-gw/heddle/billing/sqlstore"
	"github.com/heddle-gw/heddle/internal/tcpgate"
	"github.com/heddle-gw/heddle/internal/testdb"
	"github.com/heddle-gw/heddle/internal/testwait"
	"github.com/heddle-gw/heddle/routing/cacheredis"
	"github.com/heddle-gw/heddle/tenancy/ratelimitredis"
)

// TestRedisDownFallsBackThenReconnects: Heddle wires Redis while it is
// unreachable; rate limits count through the app database and the cache
// works in process meanwhile, and once Redis answers they go to Redis again.
func TestRedisDownFallsBackThenReconnects(t *testing.T) {
	share := testdb.NewRedis(t) // the app's own prefixes, with key names carrying share.ID
	key1, key2 := "key_fallback_"+share.ID, "key_fallback_2_"+share.ID
	share.DeleteWhenDone(t, "heddle:*"+share.ID+"*")
	gate := tcpgate.New(t, share.Addr)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &components{cfg: Config{RedisURL: "redis://" + gate.Addr() + "/0"}, logger: slog.New(slog.DiscardHandler), db: testdb.SQLite(t).DB}
	if err := c.openRedis(ctx); err != nil {
		t.Fatalf("openRedis with Redis down: %v", err)
	}
	defer c.redis.Close()
	if c.redisLink.healthy() {
		t.Fatal("link healthy while the gate refuses")
	}

	limiter := c.keyLimiter()
	now := time.Now()
	for i := range 2 {
		ok, _, err := limiter.Allow(ctx, key1, 2, now)
		if err != nil || !ok {
			t.Fatalf("Allow %d while Redis is down: %v %v", i, ok, err)
		}
	}
	if ok, _, err := limiter.Allow(ctx, key1, 2, now); err != nil || ok {
		t.Fatalf("third Allow within rpm 2 while Redis is down: ok=%v err=%v (want refused, no error)", ok, err)
	}
	store := c.cacheStore()
	key := "opstest:" + share.ID
	if err := store.Set(ctx, key, []byte("local"), 30*time.Second); err != nil {
		t.Fatalf("cache Set while Redis is down: %v", err)
	}
	if v, ok, err := store.Get(ctx, key); err != nil || !ok || string(v) != "local" {
		t.Fatalf("cache Get while Redis is down: %q %v %v", v, ok, err)
	}

	gate.Open()
	testwait.Until(t, 15*time.Second, "the link to come back", c.redisLink.healthy)
	if err := store.Set(ctx, key, []byte("shared"), 30*time.Second); err != nil {
		t.Fatalf("cache Set after reconnect: %v", err)
	}
	direct := share.Client
	if v, ok, err := cacheredis.New(direct, "heddle:cache:").Get(ctx, key); err != nil || !ok || string(v) != "shared" {
		t.Fatalf("the entry set after reconnect is not in Redis: %q %v %v", v, ok, err)
	}
	if err := limiter.Sync(ctx); err != nil {
		t.Fatalf("rate counters sync after reconnect: %v", err)
	}
	shared := ratelimitredis.New(direct, "heddle:")
	if n, err := shared.Spent(ctx, "r:"+key1, now.UTC().Truncate(time.Minute)); err != nil || n != 2 {
		t.Fatalf("the counts synced after reconnect are not in Redis: %d %v", n, err)
	}

	// Redis goes away again between probes: the first failing command
	// marks the link down and is answered in process.
	gate.Shut()
	if ok, _, err := limiter.Allow(ctx, key2, 5, now); err != nil || !ok {
		t.Fatalf("Allow when Redis vanished mid-flight: ok=%v err=%v", ok, err)
	}
	if c.redisLink.healthy() {
		t.Fatal("a failed command did not mark the link down")
	}
	// With Redis down the sync writes the counts to the app database.
	if err := limiter.Sync(ctx); err != nil {
		t.Fatalf("rate counters sync with Redis down: %v", err)
	}
	if n, err := billingsql.NewRateCounters(c.db).Spent(ctx, "r:"+key2, now.UTC().Truncate(time.Minute)); err != nil || n != 1 {
		t.Fatalf("the counts synced while Redis was down are not in the app database: %d %v", n, err)
	}
}
