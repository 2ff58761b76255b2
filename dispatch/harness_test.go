package dispatch_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/dispatch/provider/openai"
	"github.com/heddle-gw/heddle/internal/testwait"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/anthropic"
	"github.com/heddle-gw/heddle/llm/openaichat"
)

// testTimeout is the first-byte and idle timeout of executor tests: long
// enough that a healthy loopback stream never trips it, short enough to keep
// fault tests quick.
const testTimeout = 300 * time.Millisecond

// jitter is the fixed Rand of executor tests: backoff n is 1.25 * 250ms * 2^n.
const jitter = 0.5

var (
	backoff0 = 312500 * time.Microsecond
	backoff1 = 625 * time.Millisecond
)

// harness is one executor wired to fake upstreams through the real OpenAI
// adapter.
type harness struct {
	t      *testing.T
	exec   *dispatch.Executor
	sink   *dispatchtest.Sink
	clock  *dispatchtest.Clock
	creds  *dispatchtest.Credentials
	meta   dispatch.Meta
	began  time.Time
	ups    map[string]*dispatchtest.Upstream // by upstream model id
	target map[string]dispatch.Target        // by upstream model id
}

// pricer charges 1 micro-dollar per input token and 2 per output token.
type pricer struct{}

func (pricer) CostMicros(_ dispatch.Target, u llm.Usage) int64 {
	return int64(u.Input + 2*u.Output)
}

func newHarness(t *testing.T, cfg dispatch.Config, upstreams ...string) *harness {
	t.Helper()
	if cfg.FirstByteTimeout == 0 {
		cfg.FirstByteTimeout = testTimeout
	}
	if cfg.NonStreamTimeout == 0 {
		cfg.NonStreamTimeout = testTimeout
	}
	if cfg.StreamIdleTimeout == 0 {
		cfg.StreamIdleTimeout = testTimeout
	}
	h := &harness{
		t: t, sink: &dispatchtest.Sink{}, clock: dispatchtest.NewClock(),
		creds: dispatchtest.NewCredentials(map[string]dispatch.Credential{
			"openai": {ID: "cred-1", Secret: "sk-test-secret"},
		}),
		meta: dispatch.Meta{
			OrgID: "org-1", KeyID: "key-1", RequestID: "req-1", OperationID: "req-1/0",
			Provenance: dispatch.Provenance{Purpose: dispatch.PurposeMain, PolicyID: "pol-1", BundleID: "bun-1", BundleRevision: "7"},
		},
		ups: map[string]*dispatchtest.Upstream{}, target: map[string]dispatch.Target{},
	}
	h.began = h.clock.Now()
	for _, up := range upstreams {
		u := dispatchtest.NewUpstream(t)
		h.ups[up] = u
		h.target[up] = dispatch.Target{Model: "model-" + up, Provider: "openai", Upstream: up,
			Format: llm.FormatChat, BaseURL: u.URL + "/v1"}
	}
	h.exec = dispatch.NewExecutor(cfg, dispatch.Deps{
		Providers:   map[string]dispatch.Provider{"openai": openai.New(openai.Config{}, nil)},
		Credentials: h.creds,
		Codecs:      codecs(),
		Sink:        h.sink,
		Pricer:      pricer{},
		Clock:       h.clock,
		Rand:        dispatchtest.Rand(jitter),
	})
	return h
}

func (h *harness) plan(ups ...string) dispatch.Plan {
	var p dispatch.Plan
	for _, up := range ups {
		p.Targets = append(p.Targets, h.target[up])
	}
	return p
}

// chatOp is a chat operation whose raw body names model "requested".
func chatOp(stream bool) *dispatch.Operation {
	raw := `{"model":"requested","messages":[{"role":"user","content":"hi"}]}`
	if stream {
		raw = `{"model":"requested","messages":[{"role":"user","content":"hi"}],"stream":true}`
	}
	return &dispatch.Operation{
		Purpose: dispatch.PurposeMain, Inbound: llm.FormatChat, Stream: stream, RawBody: []byte(raw),
		Request: &llm.Request{Model: "requested", Stream: stream, Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: "hi"}}}}},
	}
}

func (h *harness) run(plan dispatch.Plan, stream bool) (*dispatch.Result, *dispatchtest.Recorder, error) {
	rec := &dispatchtest.Recorder{}
	var out dispatch.StreamWriter
	if stream {
		out = rec
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := h.exec.Run(ctx, h.meta, plan, chatOp(stream), out)
	return res, rec, err
}

// wantEvent is what a test expects of one attempt event; the harness checks
// every other field against the request's identity.
type wantEvent struct {
	up      string
	outcome dispatch.Outcome
	reason  dispatch.Reason
	status  int
	served  bool // usage, cost and TTFB are those of a served answer
}

// checkEvents asserts the ordered attempt events, every field of each.
func (h *harness) checkEvents(stream bool, want []wantEvent) {
	t := h.t
	t.Helper()
	got := h.sink.Events()
	if len(got) != len(want) {
		t.Fatalf("events: got %d %+v, want %d %+v", len(got), brief(got), len(want), want)
	}
	seen := map[string]bool{}
	prev := h.began
	for i, e := range got {
		w := want[i]
		id, err := uuid.Parse(e.EventID)
		if err != nil || id.Version() != 7 || seen[e.EventID] {
			t.Errorf("event %d: EventID %q not a fresh UUIDv7 (%v)", i, e.EventID, err)
		}
		seen[e.EventID] = true
		if e.Time.Before(prev) {
			t.Errorf("event %d: Time %v before %v", i, e.Time, prev)
		}
		prev = e.Time
		if e.Provenance != h.meta.Provenance || e.OrgID != "org-1" || e.KeyID != "key-1" ||
			e.RequestID != "req-1" || e.OperationID != "req-1/0" {
			t.Errorf("event %d: identity %+v %s %s %s %s", i, e.Provenance, e.OrgID, e.KeyID, e.RequestID, e.OperationID)
		}
		if e.AttemptIndex != i || e.Target != h.target[w.up] || e.Stream != stream {
			t.Errorf("event %d: index %d target %+v stream %v", i, e.AttemptIndex, e.Target, e.Stream)
		}
		wantCred := "cred-1"
		if w.reason == dispatch.ReasonProviderNotConfigured || w.reason == dispatch.ReasonBudgetExhausted {
			wantCred = ""
		}
		if e.CredentialID != wantCred || e.Outcome != w.outcome || e.Reason != w.reason || e.Status != w.status {
			t.Errorf("event %d: cred %q outcome %s reason %q status %d, want %s %q %d",
				i, e.CredentialID, e.Outcome, e.Reason, e.Status, w.outcome, w.reason, w.status)
		}
		wantUsage, wantCost := llm.Usage{}, int64(0)
		if w.served {
			wantUsage, wantCost = llm.Usage{Input: 10, Output: 5}, 20
		}
		if e.Usage != wantUsage || e.CostMicros != wantCost {
			t.Errorf("event %d: usage %+v cost %d, want %+v %d", i, e.Usage, e.CostMicros, wantUsage, wantCost)
		}
		switch {
		case w.outcome == dispatch.OutcomeSkipped:
			if e.Latency != 0 || e.TTFB != 0 {
				t.Errorf("event %d: skipped with latency %v ttfb %v", i, e.Latency, e.TTFB)
			}
		case e.Latency <= 0 || e.Latency > 10*time.Second:
			t.Errorf("event %d: latency %v", i, e.Latency)
		case w.status == 200 && (e.TTFB <= 0 || e.TTFB > e.Latency):
			t.Errorf("event %d: ttfb %v latency %v", i, e.TTFB, e.Latency)
		case w.status != 200 && e.TTFB != 0:
			t.Errorf("event %d: ttfb %v without a 2xx body", i, e.TTFB)
		}
		if w.reason == dispatch.ReasonFirstByteTimeout && e.Latency < testTimeout {
			t.Errorf("event %d: first-byte timeout after only %v", i, e.Latency)
		}
	}
}

func brief(evs []dispatch.AttemptEvent) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Target.Upstream + ":" + string(e.Outcome) + ":" + string(e.Reason)
	}
	return out
}

func openaiProvider() dispatch.Provider { return openai.New(openai.Config{}, nil) }

// codecs are the real wire codecs the executor decodes upstream answers with.
func codecs() map[llm.Format]llm.Codec {
	return map[llm.Format]llm.Codec{llm.FormatChat: openaichat.New(), llm.FormatAnthropic: anthropic.New()}
}

// waitRequests waits until u has received n requests (so a run is known to be
// in flight), failing the test after 5s.
func waitRequests(t testing.TB, u *dispatchtest.Upstream, n int) {
	t.Helper()
	testwait.Until(t, time.Minute, fmt.Sprintf("%d upstream requests", n), func() bool { return len(u.Requests()) >= n })
}
