package dispatch_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
)

func TestAsyncSinkForwardsInOrderAndDrains(t *testing.T) {
	inner := &dispatchtest.Sink{}
	q := dispatch.AsyncSink(inner, 16)
	for i := range 10 {
		q.RecordAttempt(dispatch.AttemptEvent{AttemptIndex: i})
	}
	if err := q.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, e := range inner.Events() {
		got = append(got, e.AttemptIndex)
	}
	if !slices.Equal(got, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) || q.Dropped() != 0 {
		t.Fatalf("forwarded %v, dropped %d", got, q.Dropped())
	}
	q.RecordAttempt(dispatch.AttemptEvent{})
	if q.Dropped() != 1 {
		t.Errorf("an event after Close must be dropped and counted")
	}
}

// finishes fails the test when f does not return while the test binary still
// has time to report it (a blocked caller), instead of hanging to the
// binary's timeout. It is not a latency bound: a loaded machine only delays
// the answer.
func finishes(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	var expired <-chan time.Time
	if d, ok := t.Deadline(); ok {
		timer := time.NewTimer(time.Until(d) * 9 / 10)
		defer timer.Stop()
		expired = timer.C
	}
	select {
	case <-done:
	case <-expired:
		t.Fatalf("%s blocked behind a stuck sink", what)
	}
}

func TestAsyncSinkNeverBlocks(t *testing.T) {
	inner := dispatchtest.NewBlockingSink()
	defer inner.Release()
	q := dispatch.AsyncSink(inner, 4)
	q.RecordAttempt(dispatch.AttemptEvent{})
	<-inner.Started()
	// The caller is never held up by the stuck sink: all 999 calls return.
	finishes(t, "RecordAttempt", func() {
		for range 999 {
			q.RecordAttempt(dispatch.AttemptEvent{})
		}
	})
	// One event is stuck in the inner sink, four wait in the queue.
	if q.Dropped() != 995 || q.Len() != 4 || inner.Entered() != 1 {
		t.Fatalf("dropped %d queued %d entered %d", q.Dropped(), q.Len(), inner.Entered())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := q.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close on a stuck sink: %v", err)
	}
}

// TestBlockingSinkDoesNotSlowRequests: behind AsyncSink, a sink that blocks
// forever does not stop requests: every one completes, one event is stuck in
// the sink, the queue holds what fits and the rest is dropped and counted,
// where a healthy sink gets one event per request.
func TestBlockingSinkDoesNotSlowRequests(t *testing.T) {
	const n, size = 40, 8
	runAll := func(sink dispatch.Sink, afterFirst func()) error {
		h := newHarness(t, dispatch.Config{}, "a")
		h.exec = dispatch.NewExecutor(dispatch.Config{}, dispatch.Deps{
			Providers: map[string]dispatch.Provider{"openai": openaiProvider()}, Credentials: h.creds,
			Codecs: codecs(), Sink: sink,
		})
		for i := range n {
			if _, err := h.exec.Run(context.Background(), h.meta, h.plan("a"), chatOp(true), &dispatchtest.Recorder{}); err != nil {
				return fmt.Errorf("run %d: %w", i, err)
			}
			if i == 0 {
				afterFirst()
			}
		}
		return nil
	}
	healthy := &dispatchtest.Sink{}
	if err := runAll(healthy, func() {}); err != nil {
		t.Fatal(err)
	}
	if got := len(healthy.Events()); got != n {
		t.Fatalf("a healthy sink got %d events for %d requests, want one each", got, n)
	}
	stuck := dispatchtest.NewBlockingSink()
	defer stuck.Release()
	q := dispatch.AsyncSink(stuck, size)
	var err error
	finishes(t, "a request", func() { err = runAll(q, func() { <-stuck.Started() }) })
	if err != nil {
		t.Fatal(err)
	}
	if stuck.Entered() != 1 || q.Len() != size || q.Dropped() != n-1-size {
		t.Fatalf("stuck sink: entered %d, queued %d, dropped %d; want 1, %d, %d", stuck.Entered(), q.Len(), q.Dropped(), size, n-1-size)
	}
}
