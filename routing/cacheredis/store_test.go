package cacheredis_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heddle-gw/heddle/internal/testdb"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/cacheredis"
	"github.com/heddle-gw/heddle/routing/routingtest"
)

func TestCacheStoreContract(t *testing.T) {
	routingtest.CacheStoreContract(t, func(t *testing.T) routing.CacheStore {
		r := testdb.NewRedis(t)
		rdb, prefix := r.Client, r.Prefix
		return cacheredis.New(rdb, prefix)
	})
}

func TestKeysLiveUnderPrefixWithTTL(t *testing.T) {
	ctx := context.Background()
	r := testdb.NewRedis(t)
	rdb, prefix := r.Client, r.Prefix
	s := cacheredis.New(rdb, prefix)
	if err := s.Set(ctx, "abc", []byte("v"), time.Hour); err != nil {
		t.Fatal(err)
	}
	n := routing.Neighbor{Key: "abc", Vector: []float32{1, 0}, Expires: time.Now().Add(time.Hour)}
	if err := s.AddNeighbor(ctx, "part", n, time.Hour, 4); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{prefix + "v:abc", prefix + "p:{part}:d", prefix + "p:{part}:o"} {
		ttl, err := rdb.PTTL(ctx, key).Result()
		if err != nil || ttl <= 59*time.Minute || ttl > time.Hour {
			t.Fatalf("PTTL(%s) = %v, %v; want about 1h", key, ttl, err)
		}
	}
	keys, err := rdb.Keys(ctx, prefix+"*").Result()
	if err != nil || len(keys) != 3 {
		t.Fatalf("keys under prefix = %v, %v; want exactly 3", keys, err)
	}
}

func TestCorruptNeighborSkipped(t *testing.T) {
	ctx := context.Background()
	r := testdb.NewRedis(t)
	rdb, prefix := r.Client, r.Prefix
	s := cacheredis.New(rdb, prefix)
	good := routing.Neighbor{Key: "good", Numbers: "n", Vector: []float32{0.25, 0.5}, Expires: time.UnixMilli(1e12).UTC()}
	if err := s.AddNeighbor(ctx, "p", good, time.Hour, 4); err != nil {
		t.Fatal(err)
	}
	// Someone else's bytes under a field of the partition.
	rdb.HSet(ctx, prefix+"p:{p}:d", "bad", "\x07garbage")
	rdb.ZAdd(ctx, prefix+"p:{p}:o", redis.Z{Score: 99, Member: "bad"})
	ns, err := s.Neighbors(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if len(ns) != 1 || ns[0].Key != "good" || ns[0].Numbers != "n" || len(ns[0].Vector) != 2 ||
		ns[0].Vector[1] != 0.5 || !ns[0].Expires.Equal(good.Expires) {
		t.Fatalf("Neighbors = %+v; want only %+v", ns, good)
	}
}
