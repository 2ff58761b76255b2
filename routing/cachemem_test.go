package routing_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/routingtest"
)

func TestMemoryCacheStoreContract(t *testing.T) {
	routingtest.CacheStoreContract(t, func(t *testing.T) routing.CacheStore {
		return routing.NewMemoryCacheStore(0, 0, nil)
	})
}

func TestMemoryCacheStoreBounds(t *testing.T) {
	ctx := context.Background()
	t.Run("items, least recently used first out", func(t *testing.T) {
		s := routing.NewMemoryCacheStore(3, 0, nil)
		for i := range 3 {
			s.Set(ctx, fmt.Sprint(i), []byte("v"), time.Hour)
		}
		s.Get(ctx, "0") // 0 is now the most recently used; 1 the least
		s.Set(ctx, "3", []byte("v"), time.Hour)
		for key, want := range map[string]bool{"0": true, "1": false, "2": true, "3": true} {
			if _, ok, _ := s.Get(ctx, key); ok != want {
				t.Errorf("key %s present = %v, want %v", key, ok, want)
			}
		}
		if s.Len() != 3 {
			t.Fatalf("Len = %d, want 3", s.Len())
		}
	})
	t.Run("bytes", func(t *testing.T) {
		s := routing.NewMemoryCacheStore(0, 1000, nil)
		for i := range 10 {
			s.Set(ctx, fmt.Sprint(i), make([]byte, 300), time.Hour)
		}
		// 300 bytes plus overhead each: only the newest 2 fit in 1000.
		if s.Len() != 2 {
			t.Fatalf("Len = %d, want 2", s.Len())
		}
		if _, ok, _ := s.Get(ctx, "9"); !ok {
			t.Fatal("newest value evicted")
		}
		// A partition counts its vectors: 4 bytes a dimension.
		s.AddNeighbor(ctx, "p", routing.Neighbor{Key: "k", Vector: make([]float32, 200), Expires: time.Now().Add(time.Hour)}, time.Hour, 4)
		if s.Len() != 1 {
			t.Fatalf("after an 800-byte partition Len = %d, want 1", s.Len())
		}
	})
	t.Run("expiry on a manual clock", func(t *testing.T) {
		clock := routingtest.NewClock(t0)
		s := routing.NewMemoryCacheStore(0, 0, clock.Now)
		s.Set(ctx, "k", []byte("v"), time.Minute)
		clock.Advance(time.Minute - time.Millisecond)
		if _, ok, _ := s.Get(ctx, "k"); !ok {
			t.Fatal("gone before its TTL")
		}
		clock.Advance(time.Millisecond)
		if _, ok, _ := s.Get(ctx, "k"); ok || s.Len() != 0 {
			t.Fatalf("alive at its TTL (Len %d)", s.Len())
		}
	})
}
