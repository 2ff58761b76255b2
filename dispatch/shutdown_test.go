package dispatch_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/internal/testwait"
	"github.com/heddle-gw/heddle/llm"
)

// runCut runs one streamed operation on upstream "a" and cancels it with
// cause once ready reports true.
func runCut(t *testing.T, h *harness, cause error, ready func(*dispatchtest.Recorder) bool) (*dispatch.Result, *dispatchtest.Recorder, error) {
	t.Helper()
	rec := &dispatchtest.Recorder{}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	type ran struct {
		res *dispatch.Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := h.exec.Run(ctx, h.meta, h.plan("a"), chatOp(true), rec)
		done <- ran{res, err}
	}()
	testwait.Until(t, 10*time.Second, "stream in the wanted state", func() bool { return ready(rec) })
	cancel(cause)
	select {
	case r := <-done:
		return r.res, rec, r.err
	case <-time.After(20 * time.Second): // a watchdog, not a latency bound
		t.Fatal("Run did not return after the cancellation")
	}
	return nil, nil, nil
}

// TestShutdownEndsCommittedStreamWithErrorEvent: a stream already sending
// content when the server shuts down gets a canonical error event saying
// so, and the attempt is recorded as a committed failure caused by the
// shutdown.
func TestShutdownEndsCommittedStreamWithErrorEvent(t *testing.T) {
	h := newHarness(t, dispatch.Config{}, "a")
	h.ups["a"].Script("a", dispatchtest.StallAfter(3))
	res, rec, err := runCut(t, h, dispatch.ErrShutdown, func(r *dispatchtest.Recorder) bool { return r.Text() != "" })
	if !errors.Is(err, dispatch.ErrCommitted) {
		t.Fatalf("err %v, want ErrCommitted", err)
	}
	if res == nil || !res.Committed || res.Interrupted != dispatch.ReasonShutdown || res.Served != h.target["a"] {
		t.Fatalf("result %+v", res)
	}
	evs := rec.Events()
	if last := evs[len(evs)-1]; last.Type != llm.EventError || last.ErrCode != "server_shutting_down" {
		t.Errorf("client's last event %+v, want the shutdown error event", last)
	}
	got := h.sink.Events()
	if len(got) != 1 || got[0].Outcome != dispatch.OutcomeFailed || got[0].Reason != dispatch.ReasonCommitted {
		t.Fatalf("attempt events %+v", brief(got))
	}
}

// TestShutdownBeforeCommit: an operation still waiting for its upstream
// ends with ErrShutdown (retryable, dispatch.shutting_down), the attempt is
// aborted with reason shutdown, and the client got nothing.
func TestShutdownBeforeCommit(t *testing.T) {
	h := newHarness(t, dispatch.Config{}, "a")
	h.ups["a"].Script("a", dispatchtest.SlowFirstByte(time.Minute))
	_, rec, err := runCut(t, h, dispatch.ErrShutdown, func(*dispatchtest.Recorder) bool { return len(h.ups["a"].Requests()) > 0 })
	if !errors.Is(err, dispatch.ErrShutdown) {
		t.Fatalf("err %v, want ErrShutdown", err)
	}
	if code, retry := dispatch.ErrorCode(err); code != "dispatch.shutting_down" || !retry {
		t.Errorf("ErrorCode %q %v", code, retry)
	}
	if got := h.sink.Events(); len(got) != 1 || got[0].Outcome != dispatch.OutcomeAborted || got[0].Reason != dispatch.ReasonShutdown {
		t.Fatalf("attempt events %+v", brief(got))
	}
	if n := len(rec.Events()); n != 0 {
		t.Errorf("client got %d events", n)
	}
}

// TestClientLeftCommittedStreamGetsNoEvent: a plain cancellation is the
// client going away: no error event is written for it.
func TestClientLeftCommittedStreamGetsNoEvent(t *testing.T) {
	h := newHarness(t, dispatch.Config{}, "a")
	h.ups["a"].Script("a", dispatchtest.StallAfter(3))
	_, rec, err := runCut(t, h, context.Canceled, func(r *dispatchtest.Recorder) bool { return r.Text() != "" })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	for _, e := range rec.Events() {
		if e.Type == llm.EventError {
			t.Fatalf("error event %+v written to a client that left", e)
		}
	}
	if got := h.sink.Events(); len(got) != 1 || got[0].Outcome != dispatch.OutcomeAborted || got[0].Reason != dispatch.ReasonCanceled {
		t.Fatalf("attempt events %+v", brief(got))
	}
}
