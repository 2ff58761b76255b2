package cacheredis

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heddle-gw/heddle/routing"
)

// DefaultPrefix starts every key the store writes.
const DefaultPrefix = "heddle:cache:"

// Store is a routing.CacheStore over Redis. Safe for concurrent use.
type Store struct {
	rdb    redis.UniversalClient
	prefix string
}

var _ routing.CacheStore = (*Store)(nil)

// New returns a store over rdb writing keys under prefix (DefaultPrefix when
// empty). Keys: prefix+"v:"+key for values; prefix+"p:{"+partition+"}:d" (a
// hash: entry key -> encoded neighbor) and ":o" (a sorted set: entry key by
// insertion order) for a partition; the braces keep both in one Redis
// Cluster slot.
func New(rdb redis.UniversalClient, prefix string) *Store {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return &Store{rdb: rdb, prefix: prefix}
}

func (s *Store) valueKey(key string) string { return s.prefix + "v:" + key }

func (s *Store) partitionKeys(p string) []string {
	base := s.prefix + "p:{" + p + "}"
	return []string{base + ":d", base + ":o"}
}

// Get returns the value under key.
func (s *Store) Get(ctx context.Context, key string) ([]byte, bool, error) {
	v, err := s.rdb.Get(ctx, s.valueKey(key)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("cacheredis: get: %w", err)
	}
	return v, true, nil
}

// Set stores value under key for ttl (millisecond precision).
func (s *Store) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if err := s.rdb.Set(ctx, s.valueKey(key), value, ttl).Err(); err != nil {
		return fmt.Errorf("cacheredis: set: %w", err)
	}
	return nil
}

// neighborsScript returns a partition's encoded neighbors, newest first.
var neighborsScript = redis.NewScript(`
local ks = redis.call('ZREVRANGE', KEYS[2], 0, -1)
if #ks == 0 then return {} end
return redis.call('HMGET', KEYS[1], unpack(ks))
`)

// addScript stores one neighbor (replacing one with the same entry key),
// orders it newest, trims the partition to ARGV[4] entries and sets both
// keys' expiry to ARGV[3] milliseconds, atomically.
var addScript = redis.NewScript(`
local top = redis.call('ZREVRANGE', KEYS[2], 0, 0, 'WITHSCORES')
local score = 1
if top[2] then score = tonumber(top[2]) + 1 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], score, ARGV[1])
local max = tonumber(ARGV[4])
local n = redis.call('ZCARD', KEYS[2])
if max > 0 and n > max then
  local old = redis.call('ZRANGE', KEYS[2], 0, n - max - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, n - max - 1)
  redis.call('HDEL', KEYS[1], unpack(old))
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return n
`)

// Neighbors returns a partition's entries, newest first. An entry that
// cannot be decoded is skipped.
func (s *Store) Neighbors(ctx context.Context, partition string) ([]routing.Neighbor, error) {
	res, err := neighborsScript.Run(ctx, s.rdb, s.partitionKeys(partition)).Slice()
	if errors.Is(err, redis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cacheredis: neighbors: %w", err)
	}
	out := make([]routing.Neighbor, 0, len(res))
	for _, r := range res {
		raw, ok := r.(string)
		if !ok {
			continue // a field trimmed between the two reads
		}
		n, err := decodeNeighbor([]byte(raw))
		if err != nil {
			continue
		}
		out = append(out, n)
	}
	return out, nil
}

// AddNeighbor adds n to a partition, keeps its newest max entries and sets
// the partition's expiry to ttl.
func (s *Store) AddNeighbor(ctx context.Context, partition string, n routing.Neighbor, ttl time.Duration, max int) error {
	ms := ttl.Milliseconds()
	if ms <= 0 {
		ms = 1
	}
	err := addScript.Run(ctx, s.rdb, s.partitionKeys(partition), n.Key, encodeNeighbor(n), ms, max).Err()
	if err != nil {
		return fmt.Errorf("cacheredis: add neighbor: %w", err)
	}
	return nil
}
