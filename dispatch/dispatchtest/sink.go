package dispatchtest

import (
	"sync"

	"github.com/heddle-gw/heddle/dispatch"
)

// Sink is an in-memory dispatch.Sink.
type Sink struct {
	mu     sync.Mutex
	events []dispatch.AttemptEvent
}

var _ dispatch.Sink = (*Sink)(nil)

// RecordAttempt stores e.
func (s *Sink) RecordAttempt(e dispatch.AttemptEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, e)
}

// Events returns a copy of the events recorded so far, in order.
func (s *Sink) Events() []dispatch.AttemptEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]dispatch.AttemptEvent(nil), s.events...)
}

// Reset forgets every event.
func (s *Sink) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = nil
}

// BlockingSink blocks forever in RecordAttempt (until Release), standing in
// for a sink whose storage hangs.
type BlockingSink struct {
	once    sync.Once
	release chan struct{}
	mu      sync.Mutex
	entered int
	first   chan struct{} // closed when the first call is inside
}

var _ dispatch.Sink = (*BlockingSink)(nil)

// NewBlockingSink returns a sink that blocks until Release.
func NewBlockingSink() *BlockingSink {
	return &BlockingSink{release: make(chan struct{}), first: make(chan struct{})}
}

// RecordAttempt blocks until Release is called.
func (s *BlockingSink) RecordAttempt(dispatch.AttemptEvent) {
	s.mu.Lock()
	s.entered++
	if s.entered == 1 {
		close(s.first)
	}
	s.mu.Unlock()
	<-s.release
}

// Entered is how many calls reached RecordAttempt.
func (s *BlockingSink) Entered() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.entered
}

// Started is closed once the first call is inside RecordAttempt (a test
// waits on it instead of polling Entered).
func (s *BlockingSink) Started() <-chan struct{} { return s.first }

// Release unblocks every call, present and future.
func (s *BlockingSink) Release() { s.once.Do(func() { close(s.release) }) }
