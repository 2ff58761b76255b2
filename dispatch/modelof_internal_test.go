package dispatch

import (
	"errors"
	"testing"

	"github.com/heddle-gw/heddle/llm"
)

func TestWireModel(t *testing.T) {
	tests := []struct {
		body string
		want string
		ok   bool
	}{
		{`{"model":"gpt-4o"}`, "gpt-4o", true},
		{` { "stream" : true , "model" : "m-1" , "x": 1}`, "m-1", true},
		{`{"messages":[{"role":"user","content":"{\"model\":\"fake\"}"}],"model":"real"}`, "real", true},
		{`{"meta":{"model":"nested"},"model":"top"}`, "top", true},
		{`{"tools":[[],{},[1,2,{"a":[]}]],"n":-1.5e3,"b":null,"model":"after"}`, "after", true},
		{`{"model":"esc\u0061ped\"q"}`, "escaped\"q", true},
		{`{"meta":{"model":"nested"}}`, "", false},
		{`{"model":42}`, "", false},
		{`[{"model":"x"}]`, "", false},
		{`{"a":"unterminated`, "", false},
		{``, "", false},
		{`{"a" "model":"x"}`, "", false},
	}
	for _, tc := range tests {
		got, err := wireModel([]byte(tc.body))
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("wireModel(%s) = %q, %v; want %q ok=%v", tc.body, got, err, tc.want, tc.ok)
		}
	}
}

func FuzzWireModel(f *testing.F) {
	for _, s := range []string{`{"model":"a"}`, `{"x":[{"model":"b"}],"model":"c"}`, `{"model":"\u00e9"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		_, _ = wireModel(body) // must not panic nor hang
	})
}

func TestGuardGemini(t *testing.T) {
	e := &Executor{}
	planned := Target{Provider: "google", Upstream: "gemini-2.5-flash", Format: llm.FormatGemini}
	ok := &Call{Target: planned, Body: []byte(`{"contents":[]}`)}
	if err := e.guard(ok, planned); err != nil {
		t.Fatalf("gemini body without model: %v", err)
	}
	bad := &Call{Target: Target{Provider: "google", Upstream: "gemini-2.5-pro", Format: llm.FormatGemini}, Body: ok.Body}
	if err := e.guard(bad, planned); !errors.Is(err, ErrTargetMismatch) {
		t.Fatalf("URL model differs: %v", err)
	}
	other := &Call{Target: Target{Provider: "openai", Upstream: "gemini-2.5-flash"}, Body: ok.Body}
	if err := e.guard(other, planned); !errors.Is(err, ErrTargetMismatch) {
		t.Fatalf("provider differs: %v", err)
	}
}

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
