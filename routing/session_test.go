package routing_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/routingtest"
)

func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func TestSessionOf(t *testing.T) {
	conv := &llm.Request{System: []llm.Part{text(ccMain)}, Messages: []llm.Message{user(text("fix the bug"))}}
	later := &llm.Request{System: []llm.Part{text(ccMain)}, Messages: []llm.Message{
		user(text("fix the bug")), assistant(text("done")), user(text("now add a test"))}}
	otherSystem := &llm.Request{System: []llm.Part{text("You are a poet.")}, Messages: []llm.Message{user(text("fix the bug"))}}
	otherFirst := &llm.Request{System: []llm.Part{text(ccMain)}, Messages: []llm.Message{user(text("fix the other bug"))}}
	derived, _ := routing.SessionOf(nil, conv)

	tests := []struct {
		name       string
		h          http.Header
		req        *llm.Request
		wantID     string
		wantSource string
	}{
		{"claude code header", header("X-Claude-Code-Session-Id", "0b6c-11"), conv, "0b6c-11", "x-claude-code-session-id"},
		{"claude code wins over the others", header("Session-Id", "s2", "X-Claude-Code-Session-Id", "cc", "X-Heddle-Session", "h"), conv, "cc", "x-claude-code-session-id"},
		{"codex Session-Id", header("Session-Id", "codex-7"), conv, "codex-7", "session-id"},
		{"Session-Id wins over x-heddle-session", header("X-Heddle-Session", "h", "Session-Id", "s"), conv, "s", "session-id"},
		{"x-heddle-session", header("X-Heddle-Session", " mine "), conv, "mine", "x-heddle-session"},
		{"blank header falls through", header("X-Claude-Code-Session-Id", "  ", "X-Heddle-Session", "h"), conv, "h", "x-heddle-session"},
		{"over-long header is digested", header("Session-Id", strings.Repeat("a", 201)), conv,
			"h-" + sha16(strings.Repeat("a", 201)), "session-id"},
		{"control bytes are digested", header("Session-Id", "a\x01b"), conv, "h-" + sha16("a\x01b"), "session-id"},
		{"derived", nil, conv, derived, routing.SessionDerived},
		{"derived is stable across turns", http.Header{}, later, derived, routing.SessionDerived},
		{"no system, no user", nil, &llm.Request{Messages: []llm.Message{assistant(text("x"))}}, "", routing.SessionNone},
		{"nil request", nil, nil, "", routing.SessionNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, src := routing.SessionOf(tt.h, tt.req)
			if id != tt.wantID || src != tt.wantSource {
				t.Fatalf("SessionOf = %q, %q; want %q, %q", id, src, tt.wantID, tt.wantSource)
			}
		})
	}
	if !strings.HasPrefix(derived, "d-") || len(derived) != 34 {
		t.Fatalf("derived id %q, want d- and 32 hex digits", derived)
	}
	for name, r := range map[string]*llm.Request{"system": otherSystem, "first message": otherFirst} {
		if id, _ := routing.SessionOf(nil, r); id == derived {
			t.Fatalf("a different %s derived the same session %q", name, id)
		}
	}
}

func TestPinKey(t *testing.T) {
	k := routing.PinKey{OrgID: "o", KeyID: "k", User: "u", Session: "s", Role: "main"}
	if got := k.Canonical(); got != "pin/v1|1:o|1:k|1:u|1:s|4:main" {
		t.Fatalf("Canonical = %q", got)
	}
	if h := k.Hash(); len(h) != 64 || h != sha64(k.Canonical()) {
		t.Fatalf("Hash = %q, want sha256 hex of Canonical", h)
	}
	// Moving bytes between fields changes the key.
	shifted := routing.PinKey{OrgID: "o", KeyID: "k", User: "u|1:s", Session: "", Role: "main"}
	if shifted.Canonical() == k.Canonical() || shifted.Hash() == k.Hash() {
		t.Fatal("field boundaries are ambiguous")
	}
	if err := k.Validate(); err != nil {
		t.Fatal(err)
	}
	anon := k
	anon.User = ""
	if err := anon.Validate(); err != nil {
		t.Fatalf("an empty end user is the key's anonymous user, got %v", err)
	}
	for _, bad := range []routing.PinKey{{KeyID: "k", Session: "s", Role: "r"}, {OrgID: "o", Session: "s", Role: "r"},
		{OrgID: "o", KeyID: "k", Role: "r"}, {OrgID: "o", KeyID: "k", Session: "s"}} {
		if err := bad.Validate(); !errors.Is(err, routing.ErrPinKey) {
			t.Fatalf("Validate(%+v) = %v, want ErrPinKey", bad, err)
		}
	}
}

func TestPinAdvance(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Minute)
	p := routing.Pin{}.Advance("m1", 1000, t0)
	if want := (routing.Pin{Model: "m1", Turns: 1, LastInputTokens: 1000, Created: t0, Updated: t0}); p != want {
		t.Fatalf("first turn = %+v, want %+v", p, want)
	}
	p = p.Advance("m1", 1800, t1)
	if want := (routing.Pin{Model: "m1", Turns: 2, LastInputTokens: 1800, Created: t0, Updated: t1}); p != want {
		t.Fatalf("same model = %+v, want %+v", p, want)
	}
	p = p.Advance("m2", 900, t1)
	if want := (routing.Pin{Model: "m2", Turns: 1, LastInputTokens: 900, Created: t1, Updated: t1}); p != want {
		t.Fatalf("switch = %+v, want %+v", p, want)
	}
}

func TestMemoryPinStoreContract(t *testing.T) {
	routingtest.PinStoreContract(t, func(t *testing.T, now func() time.Time) routing.PinStore {
		return routingtest.NewPinStore(now)
	})
}
