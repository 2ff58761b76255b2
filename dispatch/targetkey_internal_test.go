package dispatch

import "testing"

// TestTargetKeyAllocationFree: a walk compares target keys several times a
// turn (seen, passed over, the target cache); building and comparing them
// allocates nothing, and two targets differing in any of provider, upstream
// model or base URL have different keys.
func TestTargetKeyAllocationFree(t *testing.T) {
	a := Target{Model: "m", Provider: "openai", Upstream: "gpt-5-mini", BaseURL: "https://llm-gateway.internal.example.com/v1"}
	b := a
	same := false
	if allocs := testing.AllocsPerRun(100, func() { same = a.Key() == b.Key() }); allocs != 0 || !same {
		t.Errorf("comparing equal keys: %.0f allocations (want 0), equal %v", allocs, same)
	}
	for _, o := range []Target{
		{Provider: "azure", Upstream: a.Upstream, BaseURL: a.BaseURL},
		{Provider: a.Provider, Upstream: "gpt-5", BaseURL: a.BaseURL},
		{Provider: a.Provider, Upstream: a.Upstream},
	} {
		if o.Key() == a.Key() {
			t.Errorf("%+v has the key of %+v", o, a)
		}
	}
	if got, want := breakerKey(a, "cred-1"), "openai|gpt-5-mini|https://llm-gateway.internal.example.com/v1|cred-1"; got != want {
		t.Errorf("breakerKey = %q, want %q", got, want)
	}
}
