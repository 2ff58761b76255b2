package dispatch

import (
	"errors"
	"testing"

	"github.com/heddle-gw/heddle/llm"
)

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

// TestGuardNoCodec: a format without a codec cannot have its body read, so
// the call is refused rather than sent unchecked.
func TestGuardNoCodec(t *testing.T) {
	e := &Executor{}
	planned := Target{Provider: "openai", Upstream: "gpt-5", Format: llm.FormatResponses}
	call := &Call{Target: planned, Body: []byte(`{"model":"gpt-5","input":"hi"}`)}
	if err := e.guard(call, planned); !errors.Is(err, ErrTargetMismatch) || !errors.Is(err, errNoCodec) {
		t.Fatalf("no codec: %v", err)
	}
}
