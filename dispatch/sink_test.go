package dispatch_test

import (
	"context"
	"errors"
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

func TestAsyncSinkNeverBlocks(t *testing.T) {
	inner := dispatchtest.NewBlockingSink()
	defer inner.Release()
	q := dispatch.AsyncSink(inner, 4)
	q.RecordAttempt(dispatch.AttemptEvent{})
	for inner.Entered() == 0 {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	for range 999 {
		q.RecordAttempt(dispatch.AttemptEvent{})
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("999 records took %v", d)
	}
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
// forever neither stops requests nor makes them slower than with a healthy
// sink.
func TestBlockingSinkDoesNotSlowRequests(t *testing.T) {
	const n = 40
	measure := func(sink dispatch.Sink) []time.Duration {
		h := newHarness(t, dispatch.Config{}, "a")
		h.exec = dispatch.NewExecutor(dispatch.Config{}, dispatch.Deps{
			Providers: map[string]dispatch.Provider{"openai": openaiProvider()}, Credentials: h.creds,
			Codecs: codecs(), Sink: sink,
		})
		out := make([]time.Duration, n)
		for i := range out {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			start := time.Now()
			_, err := h.exec.Run(ctx, h.meta, h.plan("a"), chatOp(true), &dispatchtest.Recorder{})
			out[i] = time.Since(start)
			cancel()
			if err != nil {
				t.Fatalf("run %d: %v", i, err)
			}
		}
		return out
	}
	base := measure(&dispatchtest.Sink{})
	blocking := dispatchtest.NewBlockingSink()
	defer blocking.Release()
	q := dispatch.AsyncSink(blocking, 8)
	blocked := measure(q)
	if q.Dropped() == 0 {
		t.Fatalf("the queue never filled: the test did not exercise a stuck sink")
	}
	mb, mq := median(base), median(blocked)
	lateQ := median(blocked[n-10:])
	if mq > 3*mb+5*time.Millisecond || lateQ > 3*mb+5*time.Millisecond {
		t.Fatalf("median latency %v (last 10: %v) with a stuck sink vs %v with a healthy one", mq, lateQ, mb)
	}
	t.Logf("median latency: healthy sink %v, stuck sink %v (last 10 %v), dropped %d", mb, mq, lateQ, q.Dropped())
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
