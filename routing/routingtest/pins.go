package routingtest

import (
	"context"
	"sync"
	"time"

	"github.com/heddle-gw/heddle/routing"
)

// PinStore is an in-memory routing.PinStore keyed, like the real stores, by
// PinKey.Hash. Safe for concurrent use.
type PinStore struct {
	mu   sync.Mutex
	now  func() time.Time
	pins map[string]storedPin
}

type storedPin struct {
	pin     routing.Pin
	expires time.Time
}

var _ routing.PinStore = (*PinStore)(nil)

// NewPinStore returns an empty store reading time from now (time.Now when
// nil).
func NewPinStore(now func() time.Time) *PinStore {
	if now == nil {
		now = time.Now
	}
	return &PinStore{now: now, pins: make(map[string]storedPin)}
}

// Get returns the unexpired pin under key.
func (s *PinStore) Get(_ context.Context, key routing.PinKey) (routing.Pin, bool, error) {
	if err := key.Validate(); err != nil {
		return routing.Pin{}, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sp, ok := s.pins[key.Hash()]
	if !ok || !sp.expires.After(s.now()) {
		delete(s.pins, key.Hash())
		return routing.Pin{}, false, nil
	}
	return sp.pin, true, nil
}

// Put stores p under key until ttl from now (routing.DefaultPinTTL when
// ttl <= 0).
func (s *PinStore) Put(_ context.Context, key routing.PinKey, p routing.Pin, ttl time.Duration) error {
	if err := key.Validate(); err != nil {
		return err
	}
	if ttl <= 0 {
		ttl = routing.DefaultPinTTL
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pins[key.Hash()] = storedPin{pin: p, expires: s.now().Add(ttl)}
	return nil
}

// Len returns the number of pins held, expired ones included.
func (s *PinStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pins)
}
