package dispatch_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
)

// TestBreaker: two consecutive failures open a's breaker; while open a is
// skipped with circuit_open; after the cool-down one half-open probe goes
// through and a good one closes the breaker; a failed probe reopens it.
func TestBreaker(t *testing.T) {
	cfg := dispatch.Config{Breaker: dispatch.BreakerConfig{ConsecutiveFailures: 2, Cooldown: 30 * time.Second}}
	h := newHarness(t, cfg, "a", "b")
	h.ups["a"].Script("", dispatchtest.Status(503), dispatchtest.Status(503))
	plan := h.plan("a", "b")

	type run struct {
		advance time.Duration
		script  []dispatchtest.Step // queued on a before the run
		events  []string            // upstream:outcome:reason
		served  string
	}
	runs := []run{
		{events: []string{"a:failed:upstream_5xx", "b:served:"}, served: "b"},
		{events: []string{"a:failed:upstream_5xx", "b:served:"}, served: "b"},
		{events: []string{"a:skipped:circuit_open", "b:served:"}, served: "b"},
		{advance: 29 * time.Second, events: []string{"a:skipped:circuit_open", "b:served:"}, served: "b"},
		{advance: 2 * time.Second, script: []dispatchtest.Step{dispatchtest.Status(500)},
			events: []string{"a:failed:upstream_5xx", "b:served:"}, served: "b"}, // failed probe
		{events: []string{"a:skipped:circuit_open", "b:served:"}, served: "b"},
		{advance: 31 * time.Second, events: []string{"a:served:"}, served: "a"}, // good probe
		{events: []string{"a:served:"}, served: "a"},                            // closed again
	}
	for i, r := range runs {
		h.sink.Reset()
		h.clock.Advance(r.advance)
		h.ups["a"].Script("", r.script...)
		res, _, err := h.run(plan, false)
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if got := brief(h.sink.Events()); !slices.Equal(got, r.events) {
			t.Errorf("run %d: events %v, want %v", i, got, r.events)
		}
		if res.Served != h.target[r.served] {
			t.Errorf("run %d: served by %s, want %s", i, res.Served.Upstream, r.served)
		}
	}
	if got := len(h.ups["a"].Requests()); got != 5 {
		t.Errorf("a got %d requests, want 5 (2 failures, failed probe, good probe, 1 closed)", got)
	}
}

// TestBreakerSingleTargetOpen: a plan with no alternative gets ErrCircuitOpen
// while the breaker is open.
func TestBreakerSingleTargetOpen(t *testing.T) {
	cfg := dispatch.Config{Breaker: dispatch.BreakerConfig{ConsecutiveFailures: 1}}
	h := newHarness(t, cfg, "a")
	h.ups["a"].Script("", dispatchtest.Status(400), dispatchtest.Status(502))
	plan := h.plan("a")
	plan.MaxAttempts = 1
	if _, _, err := h.run(plan, false); err == nil {
		t.Fatal("want the scripted 400")
	}
	// A 400 says nothing about the upstream's health: still closed.
	if _, _, err := h.run(plan, false); !errors.Is(err, dispatch.ErrAttemptsExhausted) {
		t.Fatalf("second run: %v", err)
	}
	_, _, err := h.run(plan, false)
	if !errors.Is(err, dispatch.ErrCircuitOpen) {
		t.Fatalf("third run: %v, want circuit open", err)
	}
	if code, retry := dispatch.ErrorCode(err); code != "dispatch.circuit_open" || !retry {
		t.Errorf("code %q retryable %v", code, retry)
	}
	if n := len(h.ups["a"].Requests()); n != 2 {
		t.Errorf("a got %d requests, want 2", n)
	}
}

// TestBreakerHalfOpenSingleProbe: while the half-open probe is in flight,
// other operations are still skipped.
func TestBreakerHalfOpenSingleProbe(t *testing.T) {
	cfg := dispatch.Config{NonStreamTimeout: 5 * time.Second, Breaker: dispatch.BreakerConfig{ConsecutiveFailures: 1, Cooldown: time.Second}}
	h := newHarness(t, cfg, "a", "b")
	h.ups["a"].Script("", dispatchtest.Status(503), dispatchtest.SlowFirstByte(400*time.Millisecond))
	plan := h.plan("a", "b")
	if _, _, err := h.run(plan, false); err != nil {
		t.Fatal(err)
	}
	h.clock.Advance(2 * time.Second)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if _, err := h.exec.Run(context.Background(), h.meta, plan, chatOp(false), nil); err != nil {
			t.Error(err)
		}
	}()
	waitRequests(t, h.ups["a"], 2)
	res, _, err := h.run(plan, false)
	if err != nil || res.Served != h.target["b"] {
		t.Fatalf("during the probe: %v served %+v", err, res.Served)
	}
	wg.Wait()
	if got := h.ups["a"].Models(); len(got) != 2 {
		t.Fatalf("a got %v, want the failure and one probe", got)
	}
}

// TestBreakerOpenPrimaryStaysInTimeline: a and b bind one model. Once a's
// circuit opens and b served, the target cache tries b first; a is still
// recorded as skipped (circuit_open) ahead of it, once per walk, and
// Circuits reports a open since then for its organisation only. When b
// fails too, the walk reaches a without a second skip event.
func TestBreakerOpenPrimaryStaysInTimeline(t *testing.T) {
	cfg := dispatch.Config{Breaker: dispatch.BreakerConfig{ConsecutiveFailures: 1, Cooldown: time.Minute}}
	h := newHarness(t, cfg, "a", "b")
	for _, up := range []string{"a", "b"} {
		tg := h.target[up]
		tg.Model = "shared"
		h.target[up] = tg
	}
	plan := h.plan("a", "b")
	runs := []struct {
		script map[string][]dispatchtest.Step
		events []string
	}{
		{map[string][]dispatchtest.Step{"a": {dispatchtest.Status(503)}}, []string{"a:failed:upstream_5xx", "b:served:"}},
		{nil, []string{"a:skipped:circuit_open", "b:served:"}},
		{map[string][]dispatchtest.Step{"b": {dispatchtest.Status(500)}}, []string{"a:skipped:circuit_open", "b:failed:upstream_5xx"}},
	}
	openedAt := h.clock.Now()
	for i, r := range runs {
		h.sink.Reset()
		for up, st := range r.script {
			h.ups[up].Script("", st...)
		}
		_, _, _ = h.run(plan, false)
		if got := brief(h.sink.Events()); !slices.Equal(got, r.events) {
			t.Errorf("run %d: events %v, want %v", i, got, r.events)
		}
		if i == 1 {
			cs := h.exec.Circuits("org-1")
			if len(cs) != 2 || cs[0].Upstream != "a" || cs[0].State != "open" || cs[0].OpenedAt.Before(openedAt) || cs[1].OpenedAt != (time.Time{}) ||
				cs[1].Upstream != "b" || cs[1].State != "closed" || cs[0].CredentialID != "cred-1" {
				t.Errorf("circuits %+v, want a open since %v and b closed", cs, openedAt)
			}
			if cs := h.exec.Circuits("org-2"); len(cs) != 0 {
				t.Errorf("another organisation sees circuits %+v", cs)
			}
		}
	}
}

// TestCircuitsOfASharedCredential: organisations reach one binding through
// the same credential (a platform credential). One organisation's failures
// open the circuit for it alone: the others still reach the binding and
// their Circuits show it closed. Once a second organisation's breaker on it
// opens too (an upstream outage), it is open for every organisation, shown
// as shared, until those breakers cool down.
func TestCircuitsOfASharedCredential(t *testing.T) {
	cfg := dispatch.Config{Breaker: dispatch.BreakerConfig{ConsecutiveFailures: 1, Cooldown: time.Minute}}
	h := newHarness(t, cfg, "a", "b")
	plan := h.plan("a", "b")
	step := func(org string, script []dispatchtest.Step, want []string) {
		t.Helper()
		h.sink.Reset()
		h.meta.OrgID = org
		h.ups["a"].Script("", script...)
		if _, _, err := h.run(plan, false); err != nil {
			t.Fatal(err)
		}
		if got := brief(h.sink.Events()); !slices.Equal(got, want) {
			t.Fatalf("%s: events %v, want %v", org, got, want)
		}
	}
	state := func(org string) (string, bool) {
		cs := h.exec.Circuits(org)
		if len(cs) == 0 || cs[0].Upstream != "a" || cs[0].CredentialID != "cred-1" {
			t.Fatalf("%s circuits %+v, want a on cred-1", org, cs)
		}
		return cs[0].State, cs[0].Shared
	}
	step("org-1", nil, []string{"a:served:"})
	step("org-2", []dispatchtest.Step{dispatchtest.Status(503)}, []string{"a:failed:upstream_5xx", "b:served:"})
	step("org-2", nil, []string{"a:skipped:circuit_open", "b:served:"})
	step("org-1", nil, []string{"a:served:"}) // org-2's trouble is its own
	if st, _ := state("org-1"); st != "closed" {
		t.Errorf("org-1's circuit %s after org-2's failure, want closed", st)
	}
	if st, shared := state("org-2"); st != "open" || shared {
		t.Errorf("org-2's circuit %s (shared %v), want its own open", st, shared)
	}
	step("org-3", []dispatchtest.Step{dispatchtest.Status(503)}, []string{"a:failed:upstream_5xx", "b:served:"})
	step("org-1", nil, []string{"a:skipped:circuit_open", "b:served:"}) // two organisations: an outage
	if st, shared := state("org-1"); st != "open" || !shared {
		t.Errorf("org-1's circuit %s (shared %v) while two organisations' are open, want open and shared", st, shared)
	}
	h.clock.Advance(time.Minute + time.Second)
	step("org-1", nil, []string{"a:served:"})
	if got := len(h.ups["a"].Requests()); got != 5 {
		t.Errorf("a got %d requests, want 5", got)
	}
}
