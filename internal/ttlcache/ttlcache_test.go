package ttlcache

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestCache(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	c := New[int](5*time.Second, 2, func() time.Time { return now })
	loads := 0
	load := func(v int) func(context.Context) (int, error) {
		return func(context.Context) (int, error) { loads++; return v, nil }
	}
	get := func(key string, v, want, wantLoads int) {
		t.Helper()
		got, err := c.Get(ctx, key, load(v))
		if err != nil || got != want || loads != wantLoads {
			t.Fatalf("Get(%s) = %d, %v after %d loads; want %d after %d", key, got, err, loads, want, wantLoads)
		}
	}
	get("a", 1, 1, 1)
	get("a", 2, 1, 1) // cached
	now = now.Add(5 * time.Second)
	get("a", 2, 2, 2) // expired at the TTL
	c.Invalidate("a")
	get("a", 3, 3, 3)

	// A load overlapping an Invalidate is returned, not cached.
	_, err := c.Get(ctx, "b", func(context.Context) (int, error) { loads++; c.Invalidate("b"); return 7, nil })
	if err != nil {
		t.Fatal(err)
	}
	get("b", 8, 8, 5)

	// A failed load caches nothing and returns its error.
	boom := errors.New("store down")
	if _, err := c.Get(ctx, "c", func(context.Context) (int, error) { return 0, boom }); !errors.Is(err, boom) {
		t.Fatalf("failed load: %v", err)
	}
	get("c", 9, 9, 6)

	// Full (max 2): the cache starts over rather than growing.
	get("d", 10, 10, 7)
	if len(c.m) > 2 {
		t.Fatalf("%d keys cached, max 2", len(c.m))
	}
}

// TestInvalidateAll: every key loads again, and a load that overlapped the
// invalidation is not cached.
func TestInvalidateAll(t *testing.T) {
	ctx := context.Background()
	c := New[int](time.Hour, 0, nil)
	loads := 0
	load := func(context.Context) (int, error) { loads++; return loads, nil }
	for _, k := range []string{"a", "b"} {
		if _, err := c.Get(ctx, k, load); err != nil {
			t.Fatal(err)
		}
	}
	c.InvalidateAll()
	for _, k := range []string{"a", "b"} {
		if _, err := c.Get(ctx, k, load); err != nil {
			t.Fatal(err)
		}
	}
	if loads != 4 {
		t.Fatalf("loads = %d after InvalidateAll, want 4 (each key again)", loads)
	}
	v, _ := c.Get(ctx, "c", func(ctx context.Context) (int, error) {
		c.InvalidateAll() // a change while this read ran
		return -1, nil
	})
	if got, _ := c.Get(ctx, "c", load); v != -1 || got == -1 {
		t.Fatalf("a read overlapping InvalidateAll was cached: %d then %d", v, got)
	}
}
