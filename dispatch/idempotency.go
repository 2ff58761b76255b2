package dispatch

import (
	"context"
	"sync"
	"time"
)

// Idempotency deduplicates operations that carry an Idempotency-Key (SPEC §2).
// Keys arrive already scoped by organisation and API key.
type Idempotency interface {
	// Begin claims key for an operation whose request has fingerprint fp.
	//   - The key is free: it returns a Claim with Owner set; the caller runs the
	//     operation and must call Claim.Finish exactly once.
	//   - A non-streaming operation with the key is in flight and this one is
	//     not streaming: Begin blocks until it finishes (or ctx is done) and
	//     returns its result or error in the Claim (one upstream call).
	//   - A finished non-streaming result is stored within the window: it is
	//     returned in the Claim without running anything.
	//   - A streaming operation is involved while the key is in flight:
	//     ErrDuplicateInFlight.
	//   - fp differs from the stored or in-flight fingerprint:
	//     ErrIdempotencyMismatch.
	Begin(ctx context.Context, key, fp string, stream bool) (Claim, error)
}

// Claim is the answer of Idempotency.Begin.
type Claim struct {
	// Owner says the caller must run the operation and call Finish.
	Owner bool
	// Result and Err are the shared outcome when Owner is false. Result is
	// shared with other callers: read it, never modify it.
	Result *Result
	Err    error
	// Joined says the outcome is that of an operation that was in flight
	// when Begin was called (Begin waited for it); otherwise a shared
	// outcome is a stored replay.
	Joined bool
	// Finish records the owner's outcome: a successful non-streaming result is
	// stored for the window, anything else frees the key.
	Finish func(res *Result, err error)
}

// MemoryIdempotency is the in-process Idempotency of a single replica.
type MemoryIdempotency struct {
	window time.Duration
	clock  Clock
	max    int

	mu        sync.Mutex
	m         map[string]*flight
	nextSweep time.Time
}

type flight struct {
	fp      string
	stream  bool
	done    chan struct{}
	res     *Result
	err     error
	expires time.Time // zero while in flight
}

var _ Idempotency = (*MemoryIdempotency)(nil)

// NewMemoryIdempotency keeps finished results for window. At most max keys
// are held (0 means 100000); past that, results are not stored.
func NewMemoryIdempotency(window time.Duration, clock Clock, max int) *MemoryIdempotency {
	if clock == nil {
		clock = SystemClock{}
	}
	if max <= 0 {
		max = 100000
	}
	return &MemoryIdempotency{window: window, clock: clock, max: max, m: make(map[string]*flight)}
}

// Begin implements Idempotency.
func (s *MemoryIdempotency) Begin(ctx context.Context, key, fp string, stream bool) (Claim, error) {
	s.mu.Lock()
	now := s.clock.Now()
	s.sweep(now)
	f := s.m[key]
	if f != nil && !f.expires.IsZero() && !now.Before(f.expires) {
		delete(s.m, key)
		f = nil
	}
	if f == nil {
		f = &flight{fp: fp, stream: stream, done: make(chan struct{})}
		s.m[key] = f
		s.mu.Unlock()
		return Claim{Owner: true, Finish: func(res *Result, err error) { s.finish(key, f, res, err) }}, nil
	}
	s.mu.Unlock()
	if f.fp != fp {
		return Claim{}, ErrIdempotencyMismatch
	}
	select {
	case <-f.done:
		return Claim{Result: f.res, Err: f.err}, nil
	default:
	}
	if stream || f.stream {
		return Claim{}, ErrDuplicateInFlight
	}
	select {
	case <-f.done:
		return Claim{Result: f.res, Err: f.err, Joined: true}, nil
	case <-ctx.Done():
		return Claim{}, ctx.Err()
	}
}

func (s *MemoryIdempotency) finish(key string, f *flight, res *Result, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f.res, f.err = res, err
	if err == nil && !f.stream && len(s.m) <= s.max {
		f.expires = s.clock.Now().Add(s.window)
	} else if s.m[key] == f {
		delete(s.m, key)
	}
	close(f.done)
}

// sweep drops expired results, at most twice per window.
func (s *MemoryIdempotency) sweep(now time.Time) {
	if now.Before(s.nextSweep) {
		return
	}
	s.nextSweep = now.Add(s.window / 2)
	for k, f := range s.m {
		if !f.expires.IsZero() && !now.Before(f.expires) {
			delete(s.m, k)
		}
	}
}

// Len is how many keys are held (in flight or stored).
func (s *MemoryIdempotency) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}
