package analyticstest

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/heddle-gw/heddle/analytics"
)

// Store is an in-memory analytics.Store and analytics.Reader. Like the real
// stores it ignores rows whose EventID it already holds and keeps times at
// millisecond precision in UTC, and stores rows cleaned (Attempt.Clean,
// Request.Clean). Its zero value is not usable; call NewStore.
type Store struct {
	mu       sync.Mutex
	attempts []analytics.Attempt
	requests []analytics.Request
	seen     map[string]bool // "a:"/"r:" + EventID
	calls    int
	dups     int

	reject  map[string]bool // event ids that make an insert fail with ErrRejected
	fail    error
	failN   int           // fail this many more calls with failErr; -1 = every call
	blocked chan struct{} // non-nil: inserts wait until it is closed
}

var (
	_ analytics.Store  = (*Store)(nil)
	_ analytics.Reader = (*Store)(nil)
)

// NewStore returns an empty Store that accepts every insert.
func NewStore() *Store {
	return &Store{seen: make(map[string]bool)}
}

// FailWith makes every following insert fail with err (nil heals).
func (s *Store) FailWith(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail, s.failN = err, -1
	if err == nil {
		s.failN = 0
	}
}

// FailNext makes the next n inserts fail with err, then heals.
func (s *Store) FailNext(n int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail, s.failN = err, n
}

// Reject makes any insert holding one of the event ids fail with an error
// wrapping analytics.ErrRejected, storing nothing, as a store refusing an
// invalid row does.
func (s *Store) Reject(eventIDs ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reject == nil {
		s.reject = map[string]bool{}
	}
	for _, id := range eventIDs {
		s.reject[id] = true
	}
}

func (s *Store) rejects(ids func(yield func(string) bool)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id := range ids {
		if s.reject[id] {
			return fmt.Errorf("%w: row %s is invalid", analytics.ErrRejected, id)
		}
	}
	return nil
}

// Block makes inserts wait (until Unblock or their ctx is done, then failing
// with the ctx error) without storing anything.
func (s *Store) Block() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.blocked == nil {
		s.blocked = make(chan struct{})
	}
}

// Unblock releases inserts waiting since Block.
func (s *Store) Unblock() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.blocked != nil {
		close(s.blocked)
		s.blocked = nil
	}
}

// Calls returns how many insert calls reached the store (failed ones too).
func (s *Store) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Duplicates returns how many rows arrived whose EventID was already stored
// (and were ignored).
func (s *Store) Duplicates() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dups
}

// Attempts returns a copy of the stored attempts in insertion order.
func (s *Store) Attempts() []analytics.Attempt {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.attempts)
}

// Requests returns a copy of the stored requests in insertion order.
func (s *Store) Requests() []analytics.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// InsertAttempts implements analytics.Store.
func (s *Store) InsertAttempts(ctx context.Context, rows []analytics.Attempt) error {
	if err := s.admit(ctx); err != nil {
		return err
	}
	for _, a := range rows {
		if err := a.Check(); err != nil {
			return err
		}
	}
	if err := s.rejects(func(yield func(string) bool) {
		for _, a := range rows {
			if !yield(a.EventID) {
				return
			}
		}
	}); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range rows {
		a = a.Clean()
		if s.seen["a:"+a.EventID] {
			s.dups++
			continue
		}
		s.seen["a:"+a.EventID] = true
		a.Time = analytics.Millis(a.Time)
		s.attempts = append(s.attempts, a)
	}
	return nil
}

// InsertRequests implements analytics.Store.
func (s *Store) InsertRequests(ctx context.Context, rows []analytics.Request) error {
	if err := s.admit(ctx); err != nil {
		return err
	}
	for _, r := range rows {
		if err := r.Check(); err != nil {
			return err
		}
	}
	if err := s.rejects(func(yield func(string) bool) {
		for _, r := range rows {
			if !yield(r.EventID) {
				return
			}
		}
	}); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range rows {
		r = r.Clean()
		if s.seen["r:"+r.EventID] {
			s.dups++
			continue
		}
		s.seen["r:"+r.EventID] = true
		r.Time = analytics.Millis(r.Time)
		s.requests = append(s.requests, r)
	}
	return nil
}

// admit counts the call and applies the injected faults.
func (s *Store) admit(ctx context.Context) error {
	s.mu.Lock()
	s.calls++
	block := s.blocked
	var err error
	if s.failN != 0 {
		err = s.fail
		if s.failN > 0 {
			s.failN--
		}
	}
	s.mu.Unlock()
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err != nil {
		return err
	}
	return ctx.Err()
}
