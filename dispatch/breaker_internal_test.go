package dispatch

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// stepClock is a minimal fake clock for package-internal tests.
type stepClock struct{ now time.Time }

func (c *stepClock) Now() time.Time                             { return c.now }
func (c *stepClock) Sleep(context.Context, time.Duration) error { return nil }
func (c *stepClock) After(d time.Duration) <-chan time.Time     { return time.After(d) }
func (c *stepClock) AfterFunc(d time.Duration, f func()) Timer  { return time.AfterFunc(d, f) }

// own is what the breakers in these tests guard (tgt, where a test names it).
var own = owner{target: Target{Provider: "p", Model: "m"}, cred: "c"}

func TestBreakerRatio(t *testing.T) {
	cfg := BreakerConfig{ConsecutiveFailures: 100, FailureRatio: 0.5, MinRequests: 4, Window: 10 * time.Second, Cooldown: time.Second}
	tests := []struct {
		name     string
		results  []bool        // true: success
		gap      time.Duration // clock step between results
		wantOpen bool
	}{
		{"half failed over the minimum opens", []bool{true, false, true, false}, 0, true},
		{"below the minimum stays closed", []bool{false, false, true}, 0, false},
		{"under the ratio stays closed", []bool{true, true, false, true, false, true}, 0, false},
		{"failures outside the window are forgotten", []bool{false, false, true, true, true, false}, 3 * time.Second, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := &stepClock{now: time.Unix(1_000_000, 0)}
			bs := newBreakers(cfg, clock)
			for _, ok := range tc.results {
				bs.record(circuitKey{"k", "o"}, own, ok, true)
				clock.now = clock.now.Add(tc.gap)
			}
			if open := !bs.allow(circuitKey{"k", "o"}); open != tc.wantOpen {
				t.Fatalf("open %v, want %v", open, tc.wantOpen)
			}
		})
	}
}

func TestBreakerUncountedEndsProbe(t *testing.T) {
	clock := &stepClock{now: time.Unix(1_000_000, 0)}
	bs := newBreakers(BreakerConfig{ConsecutiveFailures: 1, FailureRatio: 1, MinRequests: 1, Window: time.Second, Cooldown: time.Second}, clock)
	bs.record(circuitKey{"k", "o"}, own, false, true)
	if bs.allow(circuitKey{"k", "o"}) {
		t.Fatal("open breaker allowed a call")
	}
	clock.now = clock.now.Add(2 * time.Second)
	if !bs.allow(circuitKey{"k", "o"}) || bs.allow(circuitKey{"k", "o"}) {
		t.Fatal("half-open must let exactly one probe through")
	}
	bs.record(circuitKey{"k", "o"}, own, false, false) // the probe was canceled by its caller
	if !bs.allow(circuitKey{"k", "o"}) {
		t.Fatal("a canceled probe must free the half-open slot")
	}
}

// TestBreakersForgetIdleCircuits: breakers of many organisations on a
// shared credential that are closed and idle past the window are dropped
// as new ones come, so their memory does not grow with every organisation
// that ever used the pair; a breaker that is open, or counts failures, is
// kept.
func TestBreakersForgetIdleCircuits(t *testing.T) {
	clock := &stepClock{now: time.Unix(1_000_000, 0)}
	bs := newBreakers(BreakerConfig{ConsecutiveFailures: 1, FailureRatio: 1, MinRequests: 1, Window: time.Second, Cooldown: time.Minute}, clock)
	tgt := Target{Provider: "p", Model: "m"}
	bs.track(circuitKey{"pair", "failing"}, own)
	bs.record(circuitKey{"pair", "failing"}, own, false, true) // open
	const orgs = 3 * minBreakerSweep
	for i := range orgs {
		k := circuitKey{"pair", fmt.Sprint("org-", i)}
		bs.track(k, own)
		bs.record(k, own, true, true)
		clock.now = clock.now.Add(time.Millisecond)
	}
	if n := len(bs.m); n >= orgs {
		t.Fatalf("%d breakers kept after %d organisations' single calls, %v apart", n, orgs, time.Millisecond)
	}
	if len(bs.owners) > len(bs.m)+1 {
		t.Fatalf("%d owners for %d breakers", len(bs.owners), len(bs.m))
	}
	if !bs.openFor("failing", tgt) || bs.allow(circuitKey{"pair", "failing"}) {
		t.Fatal("the open breaker was forgotten")
	}
}

// TestBreakersForgetIdleOpenCircuits: breakers that opened and then saw no
// call once their cool-down (and the window) had passed are dropped as new
// ones come, with their entries in the shared-outage table, so an
// organisation that failed once and left keeps no memory; a breaker still
// cooling down is kept.
func TestBreakersForgetIdleOpenCircuits(t *testing.T) {
	clock := &stepClock{now: time.Unix(1_000_000, 0)}
	cfg := BreakerConfig{ConsecutiveFailures: 1, FailureRatio: 1, MinRequests: 1, Window: time.Second, Cooldown: 10 * time.Millisecond}
	bs := newBreakers(cfg, clock)
	const orgs = 3 * minBreakerSweep
	for i := range orgs {
		k := circuitKey{fmt.Sprint("pair-", i%7), fmt.Sprint("org-", i)}
		bs.track(k, own)
		bs.record(k, own, false, true) // opens, and nobody calls again
		clock.now = clock.now.Add(time.Millisecond)
	}
	if n := len(bs.m); n >= orgs {
		t.Fatalf("%d breakers kept after %d organisations' single failures, %v apart", n, orgs, time.Millisecond)
	}
	if len(bs.owners) > len(bs.m)+1 {
		t.Fatalf("%d owners for %d breakers", len(bs.owners), len(bs.m))
	}
	opened := 0
	for _, m := range bs.opened {
		opened += len(m)
	}
	if opened > len(bs.m) {
		t.Fatalf("%d shared-outage entries for %d breakers", opened, len(bs.m))
	}
	last := circuitKey{fmt.Sprint("pair-", (orgs-1)%7), fmt.Sprint("org-", orgs-1)}
	clock.now = clock.now.Add(-time.Millisecond) // the last one opened 0 ms ago
	if bs.allow(last) {
		t.Fatal("the breaker still cooling down was forgotten")
	}
	// Calls that never counted (canceled by their clients) leave an owner
	// and no breaker: those go too.
	for i := range orgs {
		k := circuitKey{"pair-x", fmt.Sprint("gone-", i)}
		bs.track(k, own)
		bs.record(k, own, false, false)
	}
	if n := len(bs.owners); n >= orgs {
		t.Fatalf("%d owners kept after %d organisations' uncounted calls", n, orgs)
	}
}

// TestBreakerOwnedAfterSweep: a sweep while a pair's first call is still in
// flight drops that call's owner (it has no breaker yet); the breaker the
// call then opens is still listed as the organisation's circuit, and
// openFor sees it, without waiting for another call.
func TestBreakerOwnedAfterSweep(t *testing.T) {
	clock := &stepClock{now: time.Unix(1_000_000, 0)}
	bs := newBreakers(BreakerConfig{ConsecutiveFailures: 1, FailureRatio: 1, MinRequests: 1, Window: time.Second, Cooldown: time.Minute}, clock)
	tgt := own.target
	slow := circuitKey{"pair", "slow"}
	bs.track(slow, own) // its call is in flight
	for i := range 2 * minBreakerSweep {
		k := circuitKey{"pair", fmt.Sprint("gone-", i)}
		bs.track(k, own)
		bs.record(k, own, false, false) // canceled: no breaker, owner swept
	}
	if _, ok := bs.owners[slow]; ok {
		t.Fatal("no sweep dropped the in-flight call's owner; the test does not reach the case")
	}
	bs.record(slow, own, false, true) // the in-flight call fails: the breaker opens
	if !bs.openFor("slow", tgt) {
		t.Error("openFor misses the open breaker")
	}
	if cs := bs.circuits("slow"); len(cs) != 1 || cs[0].State != "open" || cs[0].CredentialID != "c" {
		t.Errorf("circuits %+v, want the one open circuit on credential c", cs)
	}
}
