package dispatch_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
)

// refusing answers every call with its error and counts calls.
type refusing struct {
	err   error
	calls int
}

func (p *refusing) Send(context.Context, *dispatch.Call) (*dispatch.Reply, error) {
	p.calls++
	return nil, p.err
}

// TestTerminalStopsTheWalk: a provider that marks its error Terminal ends
// the walk at once, though a 503 would otherwise be retried or failed over.
func TestTerminalStopsTheWalk(t *testing.T) {
	for _, multi := range []bool{false, true} {
		h := newHarness(t, dispatch.Config{}, "a", "b")
		p := &refusing{err: &dispatch.UpstreamError{Provider: "openai", Status: 503, Reason: dispatch.ReasonUpstream5xx, Terminal: true}}
		h.exec = dispatch.NewExecutor(dispatch.Config{}, dispatch.Deps{
			Providers: map[string]dispatch.Provider{"openai": p}, Credentials: h.creds, Codecs: codecs(), Sink: h.sink, Clock: h.clock,
		})
		plan := h.plan("a")
		if multi {
			plan = h.plan("a", "b")
		}
		_, _, err := h.run(plan, false)
		var ue *dispatch.UpstreamError
		if !errors.As(err, &ue) || !ue.Terminal || errors.Is(err, dispatch.ErrAttemptsExhausted) {
			t.Fatalf("multi=%v: err %v", multi, err)
		}
		if p.calls != 1 || len(h.clock.Sleeps()) != 0 {
			t.Errorf("multi=%v: %d calls, sleeps %v", multi, p.calls, h.clock.Sleeps())
		}
		if got := brief(h.sink.Events()); !slices.Equal(got, []string{"a:failed:upstream_5xx"}) {
			t.Errorf("multi=%v: events %v", multi, got)
		}
	}
}

// TestPrepareFailureFailsOver: a target whose format has no codec fails with
// "prepare" before any I/O and the walk moves on.
func TestPrepareFailureFailsOver(t *testing.T) {
	h := newHarness(t, dispatch.Config{}, "a", "b")
	g := h.target["a"]
	g.Format = llm.FormatGemini // no Gemini codec wired in the harness
	h.target["a"] = g
	res, _, err := h.run(h.plan("a", "b"), false)
	if err != nil || res.Served != h.target["b"] || res.Attempts != 1 {
		t.Fatalf("err %v served %+v attempts %d", err, res.Served, res.Attempts)
	}
	if got := brief(h.sink.Events()); !slices.Equal(got, []string{"a:failed:prepare", "b:served:"}) {
		t.Errorf("events %v", got)
	}
	if n := len(h.ups["a"].Requests()); n != 0 {
		t.Errorf("a got %d requests", n)
	}
	// Alone, the prepare failure is what the caller learns.
	h.sink.Reset()
	_, _, err = h.run(h.plan("a"), false)
	if !errors.Is(err, dispatch.ErrAttemptsExhausted) || err.Error() == "" {
		t.Fatalf("err %v", err)
	}
}
