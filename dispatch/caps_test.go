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

// holdSlot starts a run on plan whose first attempt stays in flight for d,
// and returns a channel with its error.
func holdSlot(h *harness, meta dispatch.Meta, plan dispatch.Plan) chan error {
	before := len(h.ups["a"].Requests())
	done := make(chan error, 1)
	go func() {
		_, err := h.exec.Run(context.Background(), meta, plan, chatOp(false), nil)
		done <- err
	}()
	waitRequests(h.t, h.ups["a"], before+1)
	return done
}

func TestBindingCap(t *testing.T) {
	cfg := dispatch.Config{BindingConcurrency: 1, CapWait: 50 * time.Millisecond, NonStreamTimeout: 5 * time.Second}
	tests := []struct {
		name   string
		plan   []string
		events []string
		err    error
	}{
		{"a full binding is skipped for the next target", []string{"a", "b"}, []string{"a:skipped:overloaded", "b:served:"}, nil},
		{"a full binding with no alternative is overloaded", []string{"a"}, []string{"a:skipped:overloaded"}, dispatch.ErrOverloaded},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, cfg, "a", "b")
			h.ups["a"].Script("", dispatchtest.SlowFirstByte(500*time.Millisecond))
			first := holdSlot(h, h.meta, h.plan("a"))
			h.sink.Reset()
			meta := h.meta
			meta.OrgID = "org-2" // a different org: only the binding cap applies
			_, err := h.exec.Run(context.Background(), meta, h.plan(tc.plan...), chatOp(false), nil)
			if !errors.Is(err, tc.err) && !(tc.err == nil && err == nil) {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
			if got := brief(h.sink.Events()); !slices.Equal(got, tc.events) {
				t.Errorf("events %v, want %v", got, tc.events)
			}
			if err := <-first; err != nil {
				t.Fatalf("first: %v", err)
			}
			if n := len(h.ups["a"].Requests()); n != 1 {
				t.Errorf("a got %d requests, want 1", n)
			}
			if code, retry := dispatch.ErrorCode(dispatch.ErrOverloaded); code != "dispatch.overloaded" || !retry {
				t.Errorf("code %q %v", code, retry)
			}
		})
	}
}

func TestOrgCap(t *testing.T) {
	cfg := dispatch.Config{OrgConcurrency: 1, CapWait: 50 * time.Millisecond, NonStreamTimeout: 5 * time.Second}
	h := newHarness(t, cfg, "a", "b")
	h.ups["a"].Script("", dispatchtest.SlowFirstByte(500*time.Millisecond))
	first := holdSlot(h, h.meta, h.plan("a"))
	_, err := h.exec.Run(context.Background(), h.meta, h.plan("b"), chatOp(false), nil)
	if !errors.Is(err, dispatch.ErrOverloaded) {
		t.Fatalf("same org: %v, want overloaded", err)
	}
	other := h.meta
	other.OrgID = "org-2"
	if _, err := h.exec.Run(context.Background(), other, h.plan("b"), chatOp(false), nil); err != nil {
		t.Fatalf("another org: %v", err)
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	// The slot is free again once the first run ended.
	if _, err := h.exec.Run(context.Background(), h.meta, h.plan("b"), chatOp(false), nil); err != nil {
		t.Fatalf("after release: %v", err)
	}
	if n := len(h.ups["b"].Requests()); n != 2 {
		t.Errorf("b got %d requests, want 2", n)
	}
}

// TestOrgCapOfMeta: an operation's own cap (Meta.OrgConcurrency) replaces
// the configured default for its organisation.
func TestOrgCapOfMeta(t *testing.T) {
	cfg := dispatch.Config{OrgConcurrency: 100, CapWait: 50 * time.Millisecond, NonStreamTimeout: 5 * time.Second}
	h := newHarness(t, cfg, "a", "b")
	h.ups["a"].Script("", dispatchtest.SlowFirstByte(500*time.Millisecond))
	capped := h.meta
	capped.OrgConcurrency = 1
	first := holdSlot(h, capped, h.plan("a"))
	if _, err := h.exec.Run(context.Background(), capped, h.plan("b"), chatOp(false), nil); !errors.Is(err, dispatch.ErrOverloaded) {
		t.Fatalf("second operation under a cap of 1: %v, want overloaded", err)
	}
	capped.OrgConcurrency = 2
	if _, err := h.exec.Run(context.Background(), capped, h.plan("b"), chatOp(false), nil); err != nil {
		t.Fatalf("under a cap of 2: %v", err)
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
}

// TestTargetCache: the binding that served last is tried first for its model;
// a failure on it forgets it.
func TestTargetCache(t *testing.T) {
	h := newHarness(t, dispatch.Config{}, "a", "b", "c")
	for _, up := range []string{"a", "b"} { // two bindings of one model
		tg := h.target[up]
		tg.Model = "shared"
		h.target[up] = tg
	}
	plan := h.plan("a", "b", "c")
	steps := []struct {
		script map[string][]dispatchtest.Step
		events []string
	}{
		{map[string][]dispatchtest.Step{"a": {dispatchtest.Status(503)}}, []string{"a:failed:upstream_5xx", "b:served:"}},
		{nil, []string{"b:served:"}},
		{nil, []string{"b:served:"}},
		{map[string][]dispatchtest.Step{"b": {dispatchtest.Status(500)}}, []string{"b:failed:upstream_5xx", "a:served:"}},
		{nil, []string{"a:served:"}},
	}
	for i, s := range steps {
		h.sink.Reset()
		for up, st := range s.script {
			h.ups[up].Script("", st...)
		}
		if _, _, err := h.run(plan, false); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if got := brief(h.sink.Events()); !slices.Equal(got, s.events) {
			t.Errorf("run %d: events %v, want %v", i, got, s.events)
		}
	}
	// Another organisation has its own memory: it starts from the plan order.
	h.sink.Reset()
	h.meta.OrgID = "org-2"
	if _, _, err := h.run(h.plan("b", "a"), false); err != nil {
		t.Fatal(err)
	}
	if got := brief(h.sink.Events()); !slices.Equal(got, []string{"b:served:"}) {
		t.Errorf("org-2: %v", got)
	}
}
