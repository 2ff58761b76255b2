package routing

import (
	"container/list"
	"context"
	"slices"
	"sync"
	"time"
)

// Memory cache store defaults.
const (
	DefaultMemoryCacheItems = 10000
	DefaultMemoryCacheBytes = 256 << 20
)

// MemoryCacheStore is an in-process CacheStore: one LRU of values and
// partitions, bounded by item count and approximate bytes, with per-item
// expiry. It serves a single replica (with several replicas use a shared
// store such as routing/cacheredis). Safe for concurrent use.
type MemoryCacheStore struct {
	mu       sync.Mutex
	maxItems int
	maxBytes int64
	bytes    int64
	now      func() time.Time
	lru      *list.List // front: most recently used; values *memItem
	items    map[string]*list.Element
}

type memItem struct {
	key       string
	value     []byte
	neighbors []Neighbor
	expires   time.Time
	size      int64
}

var _ CacheStore = (*MemoryCacheStore)(nil)

// NewMemoryCacheStore returns an empty store holding at most maxItems values
// and partitions (DefaultMemoryCacheItems when <= 0) and about maxBytes bytes
// (DefaultMemoryCacheBytes when <= 0). now is the clock; nil means time.Now.
func NewMemoryCacheStore(maxItems int, maxBytes int64, now func() time.Time) *MemoryCacheStore {
	if maxItems <= 0 {
		maxItems = DefaultMemoryCacheItems
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMemoryCacheBytes
	}
	if now == nil {
		now = time.Now
	}
	return &MemoryCacheStore{maxItems: maxItems, maxBytes: maxBytes, now: now,
		lru: list.New(), items: make(map[string]*list.Element)}
}

// Len returns the number of values and partitions held (expired ones
// included until they are touched or evicted).
func (s *MemoryCacheStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lru.Len()
}

// Get returns the value under key.
func (s *MemoryCacheStore) Get(_ context.Context, key string) ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it := s.live("v:" + key)
	if it == nil {
		return nil, false, nil
	}
	return slices.Clone(it.value), true, nil
}

// Set stores value under key for ttl.
func (s *MemoryCacheStore) Set(_ context.Context, key string, value []byte, ttl time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.put(&memItem{key: "v:" + key, value: slices.Clone(value), expires: s.now().Add(ttl),
		size: int64(len(key) + len(value) + 64)})
	return nil
}

// Neighbors returns a partition's entries, newest first.
func (s *MemoryCacheStore) Neighbors(_ context.Context, partition string) ([]Neighbor, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it := s.live("p:" + partition)
	if it == nil {
		return nil, nil
	}
	return slices.Clone(it.neighbors), nil
}

// AddNeighbor prepends n to a partition (replacing an entry with the same
// key), keeps the newest max and sets the partition's expiry to ttl from now.
func (s *MemoryCacheStore) AddNeighbor(_ context.Context, partition string, n Neighbor, ttl time.Duration, max int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	n.Vector = slices.Clone(n.Vector)
	ns := []Neighbor{n}
	if it := s.live("p:" + partition); it != nil {
		for _, old := range it.neighbors {
			if old.Key != n.Key {
				ns = append(ns, old)
			}
		}
	}
	if max > 0 && len(ns) > max {
		ns = ns[:max]
	}
	size := int64(len(partition) + 64)
	for _, x := range ns {
		size += int64(len(x.Key) + len(x.Numbers) + 4*len(x.Vector) + 48)
	}
	s.put(&memItem{key: "p:" + partition, neighbors: ns, expires: s.now().Add(ttl), size: size})
	return nil
}

// live returns the unexpired item under k, marking it recently used; an
// expired item is removed.
func (s *MemoryCacheStore) live(k string) *memItem {
	el, ok := s.items[k]
	if !ok {
		return nil
	}
	it := el.Value.(*memItem)
	if !it.expires.After(s.now()) {
		s.remove(el)
		return nil
	}
	s.lru.MoveToFront(el)
	return it
}

func (s *MemoryCacheStore) put(it *memItem) {
	if el, ok := s.items[it.key]; ok {
		s.remove(el)
	}
	s.items[it.key] = s.lru.PushFront(it)
	s.bytes += it.size
	for s.lru.Len() > s.maxItems || (s.bytes > s.maxBytes && s.lru.Len() > 1) {
		s.remove(s.lru.Back())
	}
}

func (s *MemoryCacheStore) remove(el *list.Element) {
	it := el.Value.(*memItem)
	s.lru.Remove(el)
	delete(s.items, it.key)
	s.bytes -= it.size
}
