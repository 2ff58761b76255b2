package ratelimitredis_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/tenancy/ratelimitredis"
)

// openRedis connects to the test Redis (HEDDLE_TEST_REDIS_URL) and returns a
// unique key prefix whose keys are deleted after the test. An unreachable
// server fails the test.
func openRedis(t *testing.T) (*redis.Client, string) {
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
	b := make([]byte, 6)
	rand.Read(b)
	prefix := "heddle-test:" + hex.EncodeToString(b) + ":"
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

var base = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

type step struct {
	at    time.Duration // from base
	key   string
	op    string // "allow", "tokens" (TokensOK) or "add" (AddTokens)
	limit int    // rpm, tpm, or the tokens to add
	ok    bool
	retry time.Duration
}

func TestLimiter(t *testing.T) {
	cases := []struct {
		name  string
		steps []step
	}{
		{"rpm fills then refuses to the window's end", []step{
			{0, "k1", "allow", 2, true, 0},
			{10 * time.Second, "k1", "allow", 2, true, 0},
			{15 * time.Second, "k1", "allow", 2, false, 45 * time.Second},
			{59 * time.Second, "k1", "allow", 2, false, time.Second},
			{60 * time.Second, "k1", "allow", 2, true, 0},
		}},
		{"keys are separate", []step{
			{0, "k1", "allow", 1, true, 0},
			{0, "k2", "allow", 1, true, 0},
			{time.Second, "k1", "allow", 1, false, 59 * time.Second},
		}},
		{"zero and negative mean unlimited", []step{
			{0, "k1", "allow", 0, true, 0},
			{0, "k1", "allow", -1, true, 0},
			{0, "k1", "add", 1000, true, 0},
			{0, "k1", "tokens", 0, true, 0},
		}},
		{"tpm refuses at and over the limit", []step{
			{0, "k1", "tokens", 100, true, 0},
			{time.Second, "k1", "add", 99, true, 0},
			{2 * time.Second, "k1", "tokens", 100, true, 0},
			{3 * time.Second, "k1", "add", 1, true, 0},
			{20 * time.Second, "k1", "tokens", 100, false, 40 * time.Second},
			{21 * time.Second, "k1", "add", 500, true, 0},
			{30 * time.Second, "k1", "tokens", 100, false, 30 * time.Second},
			{30 * time.Second, "k2", "tokens", 100, true, 0},
			{61 * time.Second, "k1", "tokens", 100, true, 0},
		}},
		{"tokens and requests are counted apart", []step{
			{0, "k1", "add", 5, true, 0},
			{0, "k1", "allow", 1, true, 0},
			{0, "k1", "tokens", 6, true, 0},
			{0, "k1", "allow", 1, false, time.Minute},
			{2 * time.Minute, "k1", "allow", 1, true, 0},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			rdb, prefix := openRedis(t)
			l := ratelimitredis.New(rdb, prefix)
			for i, s := range tc.steps {
				now := base.Add(s.at)
				var ok bool
				var retry time.Duration
				var err error
				switch s.op {
				case "allow":
					ok, retry, err = l.Allow(ctx, s.key, s.limit, now)
				case "tokens":
					ok, retry, err = l.TokensOK(ctx, s.key, s.limit, now)
				case "add":
					ok, err = true, l.AddTokens(ctx, s.key, s.limit, now)
				}
				if err != nil || ok != s.ok || retry != s.retry {
					t.Fatalf("step %d (%s %s %d at +%s) = %v, %s, %v; want %v, %s",
						i, s.op, s.key, s.limit, s.at, ok, retry, err, s.ok, s.retry)
				}
			}
		})
	}
}

// TestReplicasShareWindows: two clients (two replicas) with 8 goroutines
// allow exactly rpm requests between them and count every token.
func TestReplicasShareWindows(t *testing.T) {
	ctx := context.Background()
	rdb, prefix := openRedis(t)
	other := redis.NewClient(rdb.Options())
	defer other.Close()
	replicas := []*ratelimitredis.Limiter{ratelimitredis.New(rdb, prefix), ratelimitredis.New(other, prefix)}
	var allowed atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := replicas[g%2]
			for range 50 {
				ok, _, err := l.Allow(ctx, "k", 100, base)
				if err == nil {
					err = l.AddTokens(ctx, "k", 3, base)
				}
				if err != nil {
					errs <- err
					return
				}
				if ok {
					allowed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if allowed.Load() != 100 {
		t.Fatalf("allowed %d of 400 at rpm 100", allowed.Load())
	}
	for _, c := range []struct {
		tpm int
		ok  bool
	}{{1200, false}, {1201, true}} {
		if ok, _, err := replicas[1].TokensOK(ctx, "k", c.tpm, base.Add(30*time.Second)); err != nil || ok != c.ok {
			t.Fatalf("TokensOK(tpm %d) after 1200 tokens = %v, %v; want %v", c.tpm, ok, err, c.ok)
		}
	}
}

// TestCountersExpire: every counter lives under the prefix and expires no
// later than a minute after its window.
func TestCountersExpire(t *testing.T) {
	ctx := context.Background()
	rdb, prefix := openRedis(t)
	l := ratelimitredis.New(rdb, prefix)
	now := base.Add(15 * time.Second)
	if _, _, err := l.Allow(ctx, "k", 5, now); err != nil {
		t.Fatal(err)
	}
	if err := l.AddTokens(ctx, "k", 7, now); err != nil {
		t.Fatal(err)
	}
	keys, err := rdb.Keys(ctx, prefix+"*").Result()
	if err != nil || len(keys) != 2 {
		t.Fatalf("keys = %v, %v; want 2", keys, err)
	}
	for _, k := range keys {
		if !strings.Contains(k, ":k:") {
			t.Fatalf("key %q does not name the rk_ key id", k)
		}
		ttl, err := rdb.PTTL(ctx, k).Result()
		if err != nil || ttl < 100*time.Second || ttl > 105*time.Second {
			t.Fatalf("%s: PTTL = %s (%v), want about 105s (45s left in the window + 60s)", k, ttl, err)
		}
	}
}

// TestUnreachableRedisIsAnError: no call silently allows when Redis is down.
func TestUnreachableRedisIsAnError(t *testing.T) {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialerRetries: 1, DialTimeout: 200 * time.Millisecond})
	defer rdb.Close()
	l := ratelimitredis.New(rdb, "heddle-test:")
	ctx := context.Background()
	ok, _, err := l.Allow(ctx, "k", 1, base)
	if ok || !errors.Is(err, tenancy.ErrLimiterUnavailable) {
		t.Fatalf("Allow = %v, %v", ok, err)
	}
	ok, _, err = l.TokensOK(ctx, "k", 1, base)
	if ok || !errors.Is(err, tenancy.ErrLimiterUnavailable) {
		t.Fatalf("TokensOK = %v, %v", ok, err)
	}
	if err := l.AddTokens(ctx, "k", 1, base); !errors.Is(err, tenancy.ErrLimiterUnavailable) {
		t.Fatalf("AddTokens = %v", err)
	}
	err = tenancy.EnforceKeyLimits(ctx, l, "k", tenancy.Limits{RPM: 10, TPM: 10}, base)
	if !errors.Is(err, tenancy.ErrLimiterUnavailable) || errors.Is(err, tenancy.ErrRateLimited) {
		t.Fatalf("EnforceKeyLimits = %v, want ErrLimiterUnavailable", err)
	}
}
