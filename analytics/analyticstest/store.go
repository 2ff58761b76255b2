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
	seen     map[string]int // "a:"/"r:" + EventID: the number of the call that stored it
	calls    int
	dups     int
	// freshCalls counts InsertFresh* calls; freshDups the rows they carried
	// that were already stored (a caller breaking FreshInserter's
	// contract: a real store would have counted them twice).
	freshCalls int
	freshDups  int

	reject map[string]bool // event ids that make an insert fail with ErrRejected
	fail   error
	failN  int // fail this many more calls with failErr; -1 = every call
	// landN is how many more calls store their rows and then fail with
	// landErr, as an insert whose client timed out after the server took it.
	landN   int
	landErr error
	blocked chan struct{} // non-nil: inserts wait until it is closed
}

var (
	_ analytics.Store         = (*Store)(nil)
	_ analytics.FreshInserter = (*Store)(nil)
	_ analytics.Reader        = (*Store)(nil)
)

// NewStore returns an empty Store that accepts every insert.
func NewStore() *Store {
	return &Store{seen: make(map[string]int)}
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

// LandThenFailNext makes the next n inserts store their rows and then fail
// with err, as an insert the server took after the client gave up on it.
func (s *Store) LandThenFailNext(n int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.landN, s.landErr = n, err
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

// FreshCalls returns how many InsertFresh* calls reached the store (failed
// ones too; Calls counts them as well).
func (s *Store) FreshCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.freshCalls
}

// FreshDuplicates returns how many rows InsertFresh* calls carried whose
// EventID was already stored: rows a real store would have counted twice.
// Like the real stores' it ignores them.
func (s *Store) FreshDuplicates() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.freshDups
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
	return s.insertAttempts(ctx, rows, false)
}

// InsertFreshAttempts implements analytics.FreshInserter.
func (s *Store) InsertFreshAttempts(ctx context.Context, rows []analytics.Attempt) error {
	return s.insertAttempts(ctx, rows, true)
}

// InsertRequests implements analytics.Store.
func (s *Store) InsertRequests(ctx context.Context, rows []analytics.Request) error {
	return s.insertRequests(ctx, rows, false)
}

// InsertFreshRequests implements analytics.FreshInserter.
func (s *Store) InsertFreshRequests(ctx context.Context, rows []analytics.Request) error {
	return s.insertRequests(ctx, rows, true)
}

func (s *Store) insertAttempts(ctx context.Context, rows []analytics.Attempt, fresh bool) error {
	call, err := s.admit(ctx, fresh)
	if err != nil {
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
		if by, ok := s.seen["a:"+a.EventID]; ok {
			s.dups++
			if fresh && by != call {
				s.freshDups++
			}
			continue
		}
		s.seen["a:"+a.EventID] = call
		a.Time = analytics.Millis(a.Time)
		s.attempts = append(s.attempts, a)
	}
	return s.landed()
}

func (s *Store) insertRequests(ctx context.Context, rows []analytics.Request, fresh bool) error {
	call, err := s.admit(ctx, fresh)
	if err != nil {
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
		if by, ok := s.seen["r:"+r.EventID]; ok {
			s.dups++
			if fresh && by != call {
				s.freshDups++
			}
			continue
		}
		s.seen["r:"+r.EventID] = call
		r.Time = analytics.Millis(r.Time)
		s.requests = append(s.requests, r)
	}
	return s.landed()
}

// landed returns the error LandThenFailNext injects into a call that
// stored its rows (nil when none is due). Callers hold s.mu.
func (s *Store) landed() error {
	if s.landN == 0 {
		return nil
	}
	s.landN--
	return s.landErr
}

// admit counts the call and applies the injected faults.
func (s *Store) admit(ctx context.Context, fresh bool) (call int, err error) {
	s.mu.Lock()
	s.calls++
	call = s.calls
	if fresh {
		s.freshCalls++
	}
	block := s.blocked
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
			return call, ctx.Err()
		}
	}
	if err != nil {
		return call, err
	}
	return call, ctx.Err()
}
