package dispatch

import "testing"

func TestTargetCacheOrder(t *testing.T) {
	a1 := Target{Model: "A", Provider: "p1", Upstream: "a"}
	a2 := Target{Model: "A", Provider: "p2", Upstream: "a"}
	b1 := Target{Model: "B", Provider: "p1", Upstream: "b"}
	b2 := Target{Model: "B", Provider: "p2", Upstream: "b"}
	a3 := Target{Model: "A", Provider: "p3", Upstream: "a"}
	var c targetCache
	plan := []Target{a1, b1, a2, b2, a3}
	if got := c.order("o", plan); &got[0] != &plan[0] {
		t.Fatal("an empty cache must not copy the plan")
	}
	c.served("o", a3)
	c.served("o", b2)
	got := c.order("o", plan)
	want := []Target{a3, a1, b2, b1, a2}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("order %v, want %v", got, want)
		}
	}
	if plan[0] != a1 {
		t.Fatal("order modified its input")
	}
	c.failed("o", a1) // not the remembered one: no change
	c.failed("o", a3)
	got = c.order("o", plan)
	if got[0] != a1 || got[1] != b2 {
		t.Fatalf("after failure: %v", got)
	}
	if got := c.order("other-org", plan); got[0] != a1 || got[1] != b1 {
		t.Fatalf("cache leaked across orgs: %v", got)
	}
}
