package dispatch_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
)

func idemMeta(h *harness, key string) dispatch.Meta {
	m := h.meta
	m.IdempotencyKey = key
	return m
}

// TestIdempotencyConcurrentJoin: two concurrent non-streaming requests with
// the same key reach the upstream once and get the same result; a repeat in
// the window gets the stored response with no upstream call and no event.
func TestIdempotencyConcurrentJoin(t *testing.T) {
	h := newHarness(t, dispatch.Config{NonStreamTimeout: 5 * time.Second}, "a")
	h.ups["a"].Script("", dispatchtest.Step{Delay: 300 * time.Millisecond, Text: "only once"})
	meta := idemMeta(h, "idem-1")

	var wg sync.WaitGroup
	results := make([]*dispatch.Result, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i == 1 {
				waitRequests(t, h.ups["a"], 1) // join while the first is in flight
			}
			results[i], errs[i] = h.exec.Run(context.Background(), meta, h.plan("a"), chatOp(false), nil)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
	}
	if n := len(h.ups["a"].Requests()); n != 1 {
		t.Fatalf("upstream got %d requests, want 1", n)
	}
	// The joiner gets the owner's answer marked as shared, with no attempts
	// of its own (so it is not billed again).
	owner, joiner := results[0], results[1]
	if joiner.Shared == dispatch.SharedNone {
		owner, joiner = joiner, owner
	}
	if owner.Response != joiner.Response || owner.Response.Content[0].Text != "only once" {
		t.Fatalf("results differ: %+v %+v", owner, joiner)
	}
	if owner.Shared != dispatch.SharedNone || owner.Attempts != 1 || joiner.Shared != dispatch.SharedJoin ||
		joiner.Attempts != 0 || joiner.Usage != owner.Usage || joiner.Served != owner.Served {
		t.Errorf("owner %s/%d attempts, joiner %s/%d attempts usage %+v, want owner 1 attempt, a join with none",
			owner.Shared, owner.Attempts, joiner.Shared, joiner.Attempts, joiner.Usage)
	}
	h.checkEvents(false, []wantEvent{{up: "a", outcome: dispatch.OutcomeServed, status: 200, served: true}})

	h.clock.Advance(59 * time.Second)
	res, err := h.exec.Run(context.Background(), meta, h.plan("a"), chatOp(false), nil)
	if err != nil || res.Response != owner.Response || res.Shared != dispatch.SharedReplay || res.Attempts != 0 {
		t.Fatalf("repeat in the window: %v, %+v, want the stored answer replayed", err, res)
	}
	if n := len(h.ups["a"].Requests()); n != 1 || len(h.sink.Events()) != 1 {
		t.Fatalf("repeat reached the upstream (%d requests, %d events)", n, len(h.sink.Events()))
	}

	h.clock.Advance(2 * time.Second)
	res, err = h.exec.Run(context.Background(), meta, h.plan("a"), chatOp(false), nil)
	if err != nil || res.Response == owner.Response || res.Shared != dispatch.SharedNone || len(h.ups["a"].Requests()) != 2 {
		t.Fatalf("after the window: %v, %d requests", err, len(h.ups["a"].Requests()))
	}
}

func TestIdempotencyRules(t *testing.T) {
	tests := []struct {
		name        string
		firstStream bool
		secondOp    func() *dispatch.Operation
		otherKey    bool
		want        error
	}{
		{"streaming duplicate of a streaming request in flight", true, func() *dispatch.Operation { return chatOp(true) }, false, dispatch.ErrDuplicateInFlight},
		{"same key, different body", false, func() *dispatch.Operation {
			op := chatOp(false)
			op.RawBody = []byte(`{"model":"other","messages":[]}`)
			return op
		}, false, dispatch.ErrIdempotencyMismatch},
		{"same key under another API key is independent", true, func() *dispatch.Operation { return chatOp(true) }, true, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, dispatch.Config{FirstByteTimeout: 5 * time.Second, NonStreamTimeout: 5 * time.Second}, "a")
			h.ups["a"].Script("", dispatchtest.SlowFirstByte(400*time.Millisecond))
			meta := idemMeta(h, "idem-2")
			done := make(chan error, 1)
			go func() {
				var out dispatch.StreamWriter
				if tc.firstStream {
					out = &dispatchtest.Recorder{}
				}
				_, err := h.exec.Run(context.Background(), meta, h.plan("a"), chatOp(tc.firstStream), out)
				done <- err
			}()
			waitRequests(t, h.ups["a"], 1)
			second := meta
			if tc.otherKey {
				second.KeyID = "key-2"
			}
			op := tc.secondOp()
			var out dispatch.StreamWriter
			if op.Stream {
				out = &dispatchtest.Recorder{}
			}
			_, err := h.exec.Run(context.Background(), second, h.plan("a"), op, out)
			if !errors.Is(err, tc.want) && !(tc.want == nil && err == nil) {
				t.Fatalf("second: %v, want %v", err, tc.want)
			}
			if err := <-done; err != nil {
				t.Fatalf("first: %v", err)
			}
			wantCalls := 1
			if tc.want == nil {
				wantCalls = 2
			}
			if n := len(h.ups["a"].Requests()); n != wantCalls {
				t.Errorf("upstream got %d requests, want %d", n, wantCalls)
			}
		})
	}
}

// TestIdempotencyFailureNotStored: a failed request frees its key, so the
// client's retry really runs.
func TestIdempotencyFailureNotStored(t *testing.T) {
	h := newHarness(t, dispatch.Config{}, "a")
	h.ups["a"].Script("", dispatchtest.Status(400))
	meta := idemMeta(h, "idem-3")
	if _, err := h.exec.Run(context.Background(), meta, h.plan("a"), chatOp(false), nil); err == nil {
		t.Fatal("want the scripted 400")
	}
	res, err := h.exec.Run(context.Background(), meta, h.plan("a"), chatOp(false), nil)
	if err != nil || res.Response == nil || len(h.ups["a"].Requests()) != 2 {
		t.Fatalf("retry after a failure: %v (%d requests)", err, len(h.ups["a"].Requests()))
	}
}

// doneSpy is a context whose started channel closes the first time Done is
// asked for: a caller that reaches a select on it is about to wait.
type doneSpy struct {
	context.Context
	once    sync.Once
	started chan struct{}
}

func (c *doneSpy) Done() <-chan struct{} {
	c.once.Do(func() { close(c.started) })
	return c.Context.Done()
}

// TestIdempotencyOwnerCanceled: when the first caller goes away, a joined
// duplicate that is still waiting runs the request itself.
func TestIdempotencyOwnerCanceled(t *testing.T) {
	h := newHarness(t, dispatch.Config{NonStreamTimeout: time.Minute}, "a")
	// The first request is held until its caller goes away.
	h.ups["a"].Script("", dispatchtest.SlowFirstByte(time.Minute))
	meta := idemMeta(h, "idem-4")
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() {
		_, err := h.exec.Run(ctx, meta, h.plan("a"), chatOp(false), nil)
		first <- err
	}()
	waitRequests(t, h.ups["a"], 1)
	second := make(chan error, 1)
	joined := &doneSpy{Context: context.Background(), started: make(chan struct{})}
	go func() {
		_, err := h.exec.Run(joined, meta, h.plan("a"), chatOp(false), nil)
		second <- err
	}()
	// The duplicate's first look at its context is the wait on the flight.
	<-joined.started
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Fatalf("first: %v", err)
	}
	if err := <-second; err != nil {
		t.Fatalf("second: %v", err)
	}
	if n := len(h.ups["a"].Requests()); n != 2 {
		t.Fatalf("upstream got %d requests, want 2", n)
	}
}
