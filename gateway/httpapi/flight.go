package httpapi

import (
	"context"
	"sync"

	"github.com/heddle-gw/heddle/dispatch"
)

// flight tracks the turns in flight so that shutdown can end them on
// purpose instead of leaving them to die with the process.
type flight struct {
	mu      sync.Mutex
	stops   map[*context.CancelCauseFunc]struct{}
	stopped bool
	wg      sync.WaitGroup
}

// begin registers a turn whose context stop cancels; the returned end
// must be called once the turn finished (recorded). A turn that begins
// after Interrupt is stopped at once.
func (f *flight) begin(stop context.CancelCauseFunc) (end func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stops == nil {
		f.stops = map[*context.CancelCauseFunc]struct{}{}
	}
	key := &stop
	f.stops[key] = struct{}{}
	f.wg.Add(1)
	if f.stopped {
		stop(dispatch.ErrShutdown)
	}
	return func() {
		f.mu.Lock()
		delete(f.stops, key)
		f.mu.Unlock()
		f.wg.Done()
	}
}

// Interrupt ends every turn in flight (and any that begins later) with
// dispatch.ErrShutdown as the cause: a turn waiting for its upstream is
// answered 503 dispatch.shutting_down in the caller's format, a stream that
// already started gets a native error event before it closes, and each is
// recorded with its attempts and settled as usual. It returns once they
// all finished, or with ctx's error when ctx ends first. Call it when the
// server's own drain deadline passed.
func (h *Handler) Interrupt(ctx context.Context) error {
	f := &h.flight
	f.mu.Lock()
	f.stopped = true
	n := len(f.stops)
	for stop := range f.stops {
		(*stop)(dispatch.ErrShutdown)
	}
	f.mu.Unlock()
	done := make(chan struct{})
	go func() { f.wg.Wait(); close(done) }()
	select {
	case <-done:
		if n > 0 {
			h.d.Logger.InfoContext(ctx, "in-flight turns ended at the shutdown deadline", "turns", n)
		}
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
