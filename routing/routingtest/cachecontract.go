package routingtest

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/routing"
)

// OpenCacheStore opens a fresh, empty store. Stores expire entries on the
// real clock, so the suite sleeps briefly (about half a second in all).
type OpenCacheStore func(t *testing.T) routing.CacheStore

// CacheStoreContract runs the behaviour every routing.CacheStore must show:
// value round trip and overwrite, expiry, neighbors newest first with every
// field intact, the per-partition bound, replacement, isolation between
// partitions and between values and partitions, and partition expiry.
func CacheStoreContract(t *testing.T, open OpenCacheStore) {
	ctx := context.Background()
	ttl := time.Minute

	t.Run("values", func(t *testing.T) {
		s := open(t)
		if v, ok, err := s.Get(ctx, "absent"); err != nil || ok || v != nil {
			t.Fatalf("Get(absent) = %q, %v, %v", v, ok, err)
		}
		val := []byte("{\"v\":1,\"bin\":\"\x00\xff\"}")
		if err := s.Set(ctx, "k1", val, ttl); err != nil {
			t.Fatal(err)
		}
		val[0] = 'X' // the store must have copied it
		got, ok, err := s.Get(ctx, "k1")
		if err != nil || !ok || !bytes.Equal(got, []byte("{\"v\":1,\"bin\":\"\x00\xff\"}")) {
			t.Fatalf("Get(k1) = %q, %v, %v", got, ok, err)
		}
		if err := s.Set(ctx, "k1", []byte("second"), ttl); err != nil {
			t.Fatal(err)
		}
		if got, _, _ := s.Get(ctx, "k1"); string(got) != "second" {
			t.Fatalf("after overwrite Get(k1) = %q", got)
		}
		if _, ok, _ := s.Get(ctx, "k2"); ok {
			t.Fatal("Get(k2) found a value never set")
		}
	})

	t.Run("neighbors", func(t *testing.T) {
		s := open(t)
		if ns, err := s.Neighbors(ctx, "empty"); err != nil || len(ns) != 0 {
			t.Fatalf("Neighbors(empty) = %v, %v", ns, err)
		}
		exp := time.Now().Add(ttl).Truncate(time.Millisecond)
		var want []routing.Neighbor
		for i := range 5 {
			n := routing.Neighbor{Key: fmt.Sprintf("entry-%d", i), Numbers: fmt.Sprintf("num%d", i%2),
				Vector: []float32{float32(i), -0.5, 1e-7, 3.25}, Expires: exp.Add(time.Duration(i) * time.Millisecond)}
			if err := s.AddNeighbor(ctx, "p1", n, ttl, 3); err != nil {
				t.Fatal(err)
			}
			want = append([]routing.Neighbor{n}, want...)
		}
		got, err := s.Neighbors(ctx, "p1")
		if err != nil {
			t.Fatal(err)
		}
		if !sameNeighbors(got, want[:3]) {
			t.Fatalf("Neighbors(p1) = %+v\nwant the 3 newest %+v", got, want[:3])
		}
		// Re-adding a key moves it to the front without duplicating it.
		again := want[2]
		if err := s.AddNeighbor(ctx, "p1", again, ttl, 3); err != nil {
			t.Fatal(err)
		}
		got, _ = s.Neighbors(ctx, "p1")
		if len(got) == 0 || got[0].Key != again.Key {
			t.Fatalf("after re-adding %s, Neighbors = %+v", again.Key, got)
		}
		if keys := neighborKeys(got); len(keys) != len(slices.Compact(slices.Sorted(slices.Values(keys)))) {
			t.Fatalf("duplicate keys after re-adding: %v", keys)
		}
		if ns, _ := s.Neighbors(ctx, "p2"); len(ns) != 0 {
			t.Fatalf("partition p2 sees p1's entries: %+v", ns)
		}
		// A value and a partition with the same name do not collide.
		if err := s.Set(ctx, "p1", []byte("value"), ttl); err != nil {
			t.Fatal(err)
		}
		if ns, _ := s.Neighbors(ctx, "p1"); len(ns) != 3 {
			t.Fatalf("Set(p1) disturbed partition p1: %+v", ns)
		}
		if v, _, _ := s.Get(ctx, "p1"); string(v) != "value" {
			t.Fatalf("Get(p1) = %q", v)
		}
	})

	t.Run("expiry", func(t *testing.T) {
		s := open(t)
		short := 150 * time.Millisecond
		if err := s.Set(ctx, "short", []byte("x"), short); err != nil {
			t.Fatal(err)
		}
		if err := s.Set(ctx, "long", []byte("y"), ttl); err != nil {
			t.Fatal(err)
		}
		n := routing.Neighbor{Key: "short", Vector: []float32{1}, Expires: time.Now().Add(short)}
		if err := s.AddNeighbor(ctx, "ps", n, short, 4); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := s.Get(ctx, "short"); !ok {
			t.Fatal("value gone before its TTL")
		}
		time.Sleep(short + 250*time.Millisecond)
		if _, ok, _ := s.Get(ctx, "short"); ok {
			t.Fatal("value alive past its TTL")
		}
		if _, ok, _ := s.Get(ctx, "long"); !ok {
			t.Fatal("long-lived value gone")
		}
		if ns, _ := s.Neighbors(ctx, "ps"); len(ns) != 0 {
			t.Fatalf("partition alive past its TTL: %+v", ns)
		}
	})
}

func neighborKeys(ns []routing.Neighbor) []string {
	keys := make([]string, len(ns))
	for i, n := range ns {
		keys[i] = n.Key
	}
	return keys
}

func sameNeighbors(a, b []routing.Neighbor) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].Numbers != b[i].Numbers || !slices.Equal(a[i].Vector, b[i].Vector) ||
			a[i].Expires.UnixMilli() != b[i].Expires.UnixMilli() {
			return false
		}
	}
	return true
}
