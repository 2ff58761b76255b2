package dispatch_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
)

// TestWalkRules covers the walk's budgets and flags beyond single faults.
func TestWalkRules(t *testing.T) {
	s503 := dispatchtest.Status(503)
	failed := func(up string, r dispatch.Reason, status int) wantEvent {
		return wantEvent{up: up, outcome: dispatch.OutcomeFailed, reason: r, status: status}
	}
	served := func(up string) wantEvent {
		return wantEvent{up: up, outcome: dispatch.OutcomeServed, status: 200, served: true}
	}
	skipped := func(up string, r dispatch.Reason) wantEvent {
		return wantEvent{up: up, outcome: dispatch.OutcomeSkipped, reason: r}
	}
	tests := []struct {
		name    string
		cfg     dispatch.Config
		plan    []string
		bound   bool
		max     int
		scripts map[string][]dispatchtest.Step
		calls   map[string][]string
		sleeps  []time.Duration
		events  []wantEvent
		err     error // nil: served
		served  string
	}{
		{
			name: "same-target retries stop at two, then attempts exhausted",
			plan: []string{"a"}, scripts: map[string][]dispatchtest.Step{"a": {s503, s503, s503}},
			calls:  map[string][]string{"a": {"a", "a", "a"}},
			sleeps: []time.Duration{backoff0, backoff1},
			events: []wantEvent{failed("a", dispatch.ReasonUpstream5xx, 503), failed("a", dispatch.ReasonUpstream5xx, 503), failed("a", dispatch.ReasonUpstream5xx, 503)},
			err:    dispatch.ErrAttemptsExhausted,
		},
		{
			name: "MaxSameTargetRetries 1 allows one retry",
			cfg:  dispatch.Config{MaxSameTargetRetries: 1},
			plan: []string{"a"}, scripts: map[string][]dispatchtest.Step{"a": {s503, s503}},
			calls:  map[string][]string{"a": {"a", "a"}},
			sleeps: []time.Duration{backoff0},
			events: []wantEvent{failed("a", dispatch.ReasonUpstream5xx, 503), failed("a", dispatch.ReasonUpstream5xx, 503)},
			err:    dispatch.ErrAttemptsExhausted,
		},
		{
			name: "plan MaxAttempts 2 skips the third target with attempt_budget_exhausted",
			plan: []string{"a", "b", "c"}, max: 2,
			scripts: map[string][]dispatchtest.Step{"a": {s503}, "b": {s503}},
			calls:   map[string][]string{"a": {"a"}, "b": {"b"}},
			events: []wantEvent{failed("a", dispatch.ReasonUpstream5xx, 503), failed("b", dispatch.ReasonUpstream5xx, 503),
				skipped("c", dispatch.ReasonBudgetExhausted)},
			err: dispatch.ErrAttemptsExhausted,
		},
		{
			name: "MaxAttempts counts same-target retries",
			plan: []string{"a"}, max: 2, scripts: map[string][]dispatchtest.Step{"a": {s503, s503, s503}},
			calls:  map[string][]string{"a": {"a", "a"}},
			sleeps: []time.Duration{backoff0},
			events: []wantEvent{failed("a", dispatch.ReasonUpstream5xx, 503), failed("a", dispatch.ReasonUpstream5xx, 503)},
			err:    dispatch.ErrAttemptsExhausted,
		},
		{
			name:   "a provider without credentials is skipped",
			plan:   []string{"x", "a"},
			calls:  map[string][]string{"a": {"a"}},
			events: []wantEvent{skipped("x", dispatch.ReasonProviderNotConfigured), served("a")},
			served: "a",
		},
		{
			name: "a target whose other targets are unconfigured gets its same-target retries",
			plan: []string{"a", "x"}, scripts: map[string][]dispatchtest.Step{"a": {s503, s503, s503}},
			calls:  map[string][]string{"a": {"a", "a", "a"}},
			sleeps: []time.Duration{backoff0, backoff1},
			events: []wantEvent{failed("a", dispatch.ReasonUpstream5xx, 503), failed("a", dispatch.ReasonUpstream5xx, 503),
				failed("a", dispatch.ReasonUpstream5xx, 503), skipped("x", dispatch.ReasonProviderNotConfigured)},
			err: dispatch.ErrAttemptsExhausted,
		},
		{
			name: "an unconfigured first target leaves the second its retries",
			plan: []string{"x", "a"}, scripts: map[string][]dispatchtest.Step{"a": {s503, s503}},
			calls:  map[string][]string{"a": {"a", "a", "a"}},
			sleeps: []time.Duration{backoff0, backoff1},
			events: []wantEvent{skipped("x", dispatch.ReasonProviderNotConfigured), failed("a", dispatch.ReasonUpstream5xx, 503),
				failed("a", dispatch.ReasonUpstream5xx, 503), served("a")},
			served: "a",
		},
		{
			name:   "every provider unconfigured",
			plan:   []string{"x"},
			events: []wantEvent{skipped("x", dispatch.ReasonProviderNotConfigured)},
			err:    dispatch.ErrNotConfigured,
		},
		{
			name: "a bound plan retries in place and never fails over",
			plan: []string{"a", "b"}, bound: true,
			scripts: map[string][]dispatchtest.Step{"a": {s503, s503, s503}},
			calls:   map[string][]string{"a": {"a", "a", "a"}},
			sleeps:  []time.Duration{backoff0, backoff1},
			events:  []wantEvent{failed("a", dispatch.ReasonUpstream5xx, 503), failed("a", dispatch.ReasonUpstream5xx, 503), failed("a", dispatch.ReasonUpstream5xx, 503)},
			err:     dispatch.ErrAttemptsExhausted,
		},
		{
			name: "a bound plan does not fail over on model not found",
			plan: []string{"a", "b"}, bound: true,
			scripts: map[string][]dispatchtest.Step{"a": {dispatchtest.ModelNotFound()}},
			calls:   map[string][]string{"a": {"a"}},
			events:  []wantEvent{failed("a", dispatch.ReasonModelNotFound, 404)},
			err:     dispatch.ErrAttemptsExhausted,
		},
		{
			name:    "auth errors stop the walk with the upstream's error",
			plan:    []string{"a", "b"},
			scripts: map[string][]dispatchtest.Step{"a": {dispatchtest.Status(403)}},
			calls:   map[string][]string{"a": {"a"}},
			events:  []wantEvent{failed("a", dispatch.ReasonAuth, 403)},
			err:     &dispatch.UpstreamError{},
		},
		{
			name: "Retry-After past the retry budget is not waited for",
			plan: []string{"a"}, scripts: map[string][]dispatchtest.Step{"a": {dispatchtest.RateLimited("30")}},
			calls:  map[string][]string{"a": {"a"}},
			events: []wantEvent{failed("a", dispatch.ReasonRateLimited, 429)},
			err:    dispatch.ErrAttemptsExhausted,
		},
		{
			name: "Retry-After within the budget replaces a shorter backoff",
			plan: []string{"a"}, scripts: map[string][]dispatchtest.Step{"a": {dispatchtest.RateLimited("2"), s503}},
			calls:  map[string][]string{"a": {"a", "a", "a"}},
			sleeps: []time.Duration{2 * time.Second, backoff1},
			events: []wantEvent{failed("a", dispatch.ReasonRateLimited, 429), failed("a", dispatch.ReasonUpstream5xx, 503), served("a")},
			served: "a",
		},
		{
			name: "the retry budget ends retries whose backoff would pass it",
			cfg:  dispatch.Config{RetryBudget: 2500 * time.Millisecond},
			plan: []string{"a"}, scripts: map[string][]dispatchtest.Step{"a": {dispatchtest.RateLimited("2"), s503}},
			calls:  map[string][]string{"a": {"a", "a"}},
			sleeps: []time.Duration{2 * time.Second},
			events: []wantEvent{failed("a", dispatch.ReasonRateLimited, 429), failed("a", dispatch.ReasonUpstream5xx, 503)},
			err:    dispatch.ErrAttemptsExhausted,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, tc.cfg, "a", "b", "c", "x")
			x := h.target["x"]
			x.Provider = "unconfigured"
			h.target["x"] = x
			for up, steps := range tc.scripts {
				h.ups[up].Script("", steps...)
			}
			plan := h.plan(tc.plan...)
			plan.Bound, plan.MaxAttempts = tc.bound, tc.max
			res, _, err := h.run(plan, false)
			for up, u := range h.ups {
				if got := u.Models(); !slices.Equal(got, tc.calls[up]) {
					t.Errorf("upstream %s got %v, want %v", up, got, tc.calls[up])
				}
			}
			if got := h.clock.Sleeps(); !slices.Equal(got, tc.sleeps) {
				t.Errorf("sleeps %v, want %v", got, tc.sleeps)
			}
			h.checkEvents(false, tc.events)
			var ue *dispatch.UpstreamError
			switch {
			case tc.err == nil:
				if err != nil || res.Served != h.target[tc.served] {
					t.Fatalf("err %v served %+v", err, res.Served)
				}
			case errors.As(tc.err, &ue):
				if !errors.As(err, &ue) || errors.Is(err, dispatch.ErrAttemptsExhausted) {
					t.Fatalf("err %v, want an upstream error alone", err)
				}
			case !errors.Is(err, tc.err):
				t.Fatalf("err %v, want %v", err, tc.err)
			}
		})
	}
}

func TestBackoffBounds(t *testing.T) {
	for _, tc := range []struct {
		rand   float64
		sleeps []time.Duration
	}{
		{0, []time.Duration{250 * time.Millisecond, 500 * time.Millisecond}},
		{0.999, []time.Duration{374875 * time.Microsecond, 749750 * time.Microsecond}},
	} {
		h := newHarness(t, dispatch.Config{}, "a")
		h.exec = dispatch.NewExecutor(dispatch.Config{}, dispatch.Deps{
			Providers: map[string]dispatch.Provider{"openai": openaiProvider()}, Credentials: h.creds,
			Codecs: codecs(),
			Clock:  h.clock, Rand: dispatchtest.Rand(tc.rand),
		})
		h.ups["a"].Script("", dispatchtest.Status(500), dispatchtest.Status(500))
		if _, _, err := h.run(h.plan("a"), false); err != nil {
			t.Fatal(err)
		}
		got := h.clock.Sleeps()
		if !slices.Equal(got, tc.sleeps) {
			t.Errorf("rand %v: sleeps %v, want %v", tc.rand, got, tc.sleeps)
		}
		for n, d := range got {
			lo := 250 * time.Millisecond << n
			if d < lo || d >= lo*3/2 {
				t.Errorf("sleep %d = %v outside [%v, %v)", n, d, lo, lo*3/2)
			}
		}
	}
}

func TestCanceledWalk(t *testing.T) {
	h := newHarness(t, dispatch.Config{FirstByteTimeout: 10 * time.Second}, "a", "b")
	h.ups["a"].Script("", dispatchtest.SlowFirstByte(10*time.Second))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	res, err := h.exec.Run(ctx, h.meta, h.plan("a", "b"), chatOp(true), &dispatchtest.Recorder{})
	if !errors.Is(err, context.Canceled) || res.Attempts != 1 {
		t.Fatalf("err %v attempts %d", err, res.Attempts)
	}
	h.checkEvents(true, []wantEvent{{up: "a", outcome: dispatch.OutcomeAborted, reason: dispatch.ReasonCanceled}})
	if n := len(h.ups["b"].Requests()); n != 0 {
		t.Errorf("a canceled walk went on to b (%d requests)", n)
	}
	if code, _ := dispatch.ErrorCode(err); code != "dispatch.canceled" {
		t.Errorf("code %q", code)
	}
}

// TestLogsCarryNoSecrets: failed attempts are logged with the closed
// vocabulary only: no credential, prompt text or upstream message.
func TestLogsCarryNoSecrets(t *testing.T) {
	var buf bytes.Buffer
	h := newHarness(t, dispatch.Config{}, "a", "b")
	h.exec = dispatch.NewExecutor(dispatch.Config{}, dispatch.Deps{
		Providers: map[string]dispatch.Provider{"openai": openaiProvider()}, Credentials: h.creds,
		Codecs: codecs(), Clock: h.clock, Rand: dispatchtest.Rand(0),
		Logger: slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	h.ups["a"].Script("", dispatchtest.Step{Status: 503, Message: "upstream-secret-message"})
	h.ups["b"].Script("", dispatchtest.CutAfter(2))
	op := chatOp(true)
	op.RawBody = bytes.Replace(op.RawBody, []byte(`"hi"`), []byte(`"PROMPT-TEXT-123"`), 1)
	_, err := h.exec.Run(context.Background(), h.meta, h.plan("a", "b"), op, &dispatchtest.Recorder{})
	if !errors.Is(err, dispatch.ErrCommitted) {
		t.Fatalf("err %v", err)
	}
	logs := buf.String()
	for _, secret := range []string{"sk-test-secret", "PROMPT-TEXT-123", "upstream-secret-message", "Hello"} {
		if strings.Contains(logs, secret) {
			t.Errorf("logs contain %q: %s", secret, logs)
		}
	}
	for _, want := range []string{`"reason":"upstream_5xx"`, `"reason":"committed"`, `"level":"WARN"`, `"request_id":"req-1"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %s: %s", want, logs)
		}
	}
}
