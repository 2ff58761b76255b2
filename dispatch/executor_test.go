package dispatch_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/llm"
)

// class is what the executor must do with a fault.
type class int

const (
	classOK        class = iota // served at once
	classTransient              // retry in place on a single target, fail over on several
	classFailover               // never retried in place; fail over when there is a next target
	classStop                   // stop the walk, no failover
	classCommitted              // failed after commit: the client got an error event, nothing more is tried
)

// mode is how a fault shows in one of the two modes.
type mode struct {
	class  class
	reason dispatch.Reason
	status int
	sleep  time.Duration // the retry delay when retried in place (0: backoff0)
	text   string        // what reached the client from the failed attempt (committed only)
}

type fault struct {
	name      string
	step      dispatchtest.Step
	stream    mode
	nonStream mode
}

var faults = []fault{
	{"500", dispatchtest.Status(500),
		mode{classTransient, dispatch.ReasonUpstream5xx, 500, 0, ""}, mode{classTransient, dispatch.ReasonUpstream5xx, 500, 0, ""}},
	{"503", dispatchtest.Status(503),
		mode{classTransient, dispatch.ReasonUpstream5xx, 503, 0, ""}, mode{classTransient, dispatch.ReasonUpstream5xx, 503, 0, ""}},
	{"429 Retry-After 1", dispatchtest.RateLimited("1"),
		mode{classTransient, dispatch.ReasonRateLimited, 429, time.Second, ""}, mode{classTransient, dispatch.ReasonRateLimited, 429, time.Second, ""}},
	{"404 model not found", dispatchtest.ModelNotFound(),
		mode{classFailover, dispatch.ReasonModelNotFound, 404, 0, ""}, mode{classFailover, dispatch.ReasonModelNotFound, 404, 0, ""}},
	{"402 billing", dispatchtest.Billing(),
		mode{classFailover, dispatch.ReasonBillingBlocked, 402, 0, ""}, mode{classFailover, dispatch.ReasonBillingBlocked, 402, 0, ""}},
	{"401 auth", dispatchtest.Status(401),
		mode{classStop, dispatch.ReasonAuth, 401, 0, ""}, mode{classStop, dispatch.ReasonAuth, 401, 0, ""}},
	{"400 bad request", dispatchtest.Status(400),
		mode{classStop, dispatch.ReasonBadRequest, 400, 0, ""}, mode{classStop, dispatch.ReasonBadRequest, 400, 0, ""}},
	{"connection reset before headers", dispatchtest.Reset(),
		mode{classTransient, dispatch.ReasonTransport, 0, 0, ""}, mode{classTransient, dispatch.ReasonTransport, 0, 0, ""}},
	{"slow first byte", dispatchtest.SlowFirstByte(5 * time.Second),
		mode{classTransient, dispatch.ReasonFirstByteTimeout, 0, 0, ""}, mode{classTransient, dispatch.ReasonFirstByteTimeout, 0, 0, ""}},
	{"stall before content", dispatchtest.StallAfter(1),
		mode{classTransient, dispatch.ReasonStreamStall, 200, 0, ""}, mode{classTransient, dispatch.ReasonStreamStall, 200, 0, ""}},
	{"stall mid-stream", dispatchtest.StallAfter(2),
		mode{classCommitted, dispatch.ReasonCommitted, 200, 0, "Hello"}, mode{classTransient, dispatch.ReasonStreamStall, 200, 0, ""}},
	{"cut before content", dispatchtest.CutAfter(1),
		mode{classTransient, dispatch.ReasonTransport, 200, 0, ""}, mode{classTransient, dispatch.ReasonTransport, 200, 0, ""}},
	{"cut mid-stream", dispatchtest.CutAfter(3),
		mode{classCommitted, dispatch.ReasonCommitted, 200, 0, "Hello from"}, mode{classTransient, dispatch.ReasonTransport, 200, 0, ""}},
	{"success", dispatchtest.OK(""),
		mode{classOK, "", 200, 0, ""}, mode{classOK, "", 200, 0, ""}},
}

// TestRunFaults plays every fault on the first target of a single-target and
// of a two-target plan, streaming and not, and checks the attempts made and
// their order, the backoff, what the client received and every attempt event.
func TestRunFaults(t *testing.T) {
	for _, f := range faults {
		for _, stream := range []bool{false, true} {
			for _, multi := range []bool{false, true} {
				m := f.nonStream
				if stream {
					m = f.stream
				}
				name := fmt.Sprintf("%s/stream=%v/multi=%v", f.name, stream, multi)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					runFault(t, f.step, m, stream, multi)
				})
			}
		}
	}
}

func runFault(t *testing.T, step dispatchtest.Step, m mode, stream, multi bool) {
	h := newHarness(t, dispatch.Config{}, "a", "b")
	h.ups["a"].Script("", step)
	plan := h.plan("a")
	if multi {
		plan = h.plan("a", "b")
	}
	res, rec, err := h.run(plan, stream)

	served := func(up string) wantEvent {
		return wantEvent{up: up, outcome: dispatch.OutcomeServed, status: 200, served: true}
	}
	failed := wantEvent{up: "a", outcome: dispatch.OutcomeFailed, reason: m.reason, status: m.status}

	var (
		wantA, wantB []string
		sleeps       []time.Duration
		events       []wantEvent
		text         string
		servedBy     string
		fallback     bool
	)
	switch {
	case m.class == classOK:
		wantA, events, text, servedBy = []string{"a"}, []wantEvent{served("a")}, "Hello from a", "a"
	case m.class == classTransient && !multi:
		sleep := m.sleep
		if sleep == 0 {
			sleep = backoff0
		}
		wantA, sleeps, events = []string{"a", "a"}, []time.Duration{sleep}, []wantEvent{failed, served("a")}
		text, servedBy = "Hello from a", "a"
	case (m.class == classTransient || m.class == classFailover) && multi:
		wantA, wantB, events = []string{"a"}, []string{"b"}, []wantEvent{failed, served("b")}
		text, servedBy, fallback = "Hello from b", "b", true
	default: // failover-only on one target, stop, committed
		wantA, events, text = []string{"a"}, []wantEvent{failed}, m.text
	}

	if got := h.ups["a"].Models(); !slices.Equal(got, wantA) {
		t.Errorf("upstream a got %v, want %v", got, wantA)
	}
	if got := h.ups["b"].Models(); !slices.Equal(got, wantB) {
		t.Errorf("upstream b got %v, want %v", got, wantB)
	}
	if got := h.clock.Sleeps(); !slices.Equal(got, sleeps) {
		t.Errorf("sleeps %v, want %v", got, sleeps)
	}
	h.checkEvents(stream, events)

	if res == nil {
		t.Fatalf("nil result (err %v)", err)
	}
	if res.Attempts != len(wantA)+len(wantB) {
		t.Errorf("Result.Attempts %d, want %d", res.Attempts, len(wantA)+len(wantB))
	}
	switch m.class {
	case classOK, classTransient, classFailover:
		if servedBy != "" {
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			checkServed(t, h, res, rec, stream, servedBy, fallback, text)
			return
		}
		// failover-only fault on a single target: nothing else to try
		var ue *dispatch.UpstreamError
		if !errors.Is(err, dispatch.ErrAttemptsExhausted) || !errors.As(err, &ue) || ue.Status != m.status {
			t.Fatalf("err %v, want attempts exhausted wrapping status %d", err, m.status)
		}
		if code, _ := dispatch.ErrorCode(err); code != "dispatch.attempts_exhausted" {
			t.Errorf("ErrorCode %q", code)
		}
	case classStop:
		var ue *dispatch.UpstreamError
		if !errors.As(err, &ue) || ue.Status != m.status || ue.Reason != m.reason || errors.Is(err, dispatch.ErrAttemptsExhausted) {
			t.Fatalf("err %v, want the upstream's %d", err, m.status)
		}
		if ue.Message != fmt.Sprintf("scripted %d", m.status) || ue.Provider != "openai" {
			t.Errorf("upstream error %+v", ue)
		}
	case classCommitted:
		if !errors.Is(err, dispatch.ErrCommitted) || !res.Committed || res.Served != h.target["a"] {
			t.Fatalf("err %v committed %v served %+v", err, res.Committed, res.Served)
		}
		if rec.Text() != text {
			t.Errorf("client text %q, want %q", rec.Text(), text)
		}
		evs := rec.Events()
		last := evs[len(evs)-1]
		if last.Type != llm.EventError || last.ErrCode != "upstream_stream_interrupted" || last.Raw != nil {
			t.Errorf("client's last event %+v, want a canonical error event", last)
		}
		if commits, _ := rec.Commits(); len(commits) != 1 || commits[0] != h.target["a"] {
			t.Errorf("commits %+v", commits)
		}
	}
	if !stream && rec.Flushes() != 0 {
		t.Errorf("a non-streaming run wrote to the stream")
	}
	if m.class != classCommitted && len(rec.Events()) != 0 {
		t.Errorf("client got %v from a failed walk", rec.Types())
	}
}

func checkServed(t *testing.T, h *harness, res *dispatch.Result, rec *dispatchtest.Recorder, stream bool, up string, fallback bool, text string) {
	t.Helper()
	if res.Served != h.target[up] || res.FallbackUsed != fallback || res.Committed != stream {
		t.Errorf("served %+v fallback %v committed %v", res.Served, res.FallbackUsed, res.Committed)
	}
	if res.Usage != (llm.Usage{Input: 10, Output: 5}) || res.TTFB <= 0 {
		t.Errorf("usage %+v ttfb %v", res.Usage, res.TTFB)
	}
	if !stream {
		if res.Response == nil || len(res.Response.Content) != 1 || res.Response.Content[0].Text != text ||
			res.Response.StopReason != llm.StopEnd {
			t.Fatalf("response %+v", res.Response)
		}
		if len(res.RawBody) == 0 {
			t.Errorf("same-format answer without RawBody")
		}
		return
	}
	want := []llm.EventType{llm.EventMessageStart, llm.EventBlockStart}
	got := rec.Types()
	if len(got) < 4 || got[0] != want[0] || got[1] != want[1] || got[len(got)-1] != llm.EventDone {
		t.Errorf("client events %v", got)
	}
	if rec.Text() != text {
		t.Errorf("client text %q, want %q", rec.Text(), text)
	}
	evs := rec.Events()
	if len(evs[0].Raw) == 0 || string(evs[len(evs)-1].Raw) != "data: [DONE]\n\n" {
		t.Errorf("events do not carry the upstream's raw frames: first %q last %q", evs[0].Raw, evs[len(evs)-1].Raw)
	}
	if rec.Flushes() < len(got)-2 {
		t.Errorf("%d flushes for %d events", rec.Flushes(), len(got))
	}
	commits, fbs := rec.Commits()
	if len(commits) != 1 || commits[0] != h.target[up] || fbs[0] != fallback {
		t.Errorf("commits %+v %v", commits, fbs)
	}
}
