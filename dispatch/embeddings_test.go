package dispatch_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/llm"
)

func embeddingsOp() *dispatch.Operation {
	return &dispatch.Operation{Purpose: dispatch.PurposeMain, Inbound: llm.FormatChat, Endpoint: dispatch.EndpointEmbeddings,
		RawBody: []byte(`{"model":"requested","input":["a","b"],"dimensions":3,"user":"u1"}`)}
}

// TestEmbeddingsEndpoint: an embeddings operation posts the caller's body
// (model replaced, every other member kept) to {base}/embeddings, fails
// over from a 503 to the next target, returns the upstream's body as is and
// bills the usage its codec reads; the attempt events carry it priced.
func TestEmbeddingsEndpoint(t *testing.T) {
	h := newHarness(t, dispatch.Config{}, "a", "b")
	h.ups["a"].Script("a", dispatchtest.Status(503), dispatchtest.Status(503), dispatchtest.Status(503))
	h.ups["b"].Script("b", dispatchtest.Step{InputTokens: 7})
	res, err := h.exec.Run(context.Background(), h.meta, h.plan("a", "b"), embeddingsOp(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Served.Upstream != "b" || !res.FallbackUsed || res.Usage != (llm.Usage{Input: 7}) {
		t.Errorf("result served %s fallback %v usage %+v", res.Served.Upstream, res.FallbackUsed, res.Usage)
	}
	var body struct {
		Data []struct {
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(res.RawBody, &body); err != nil || len(body.Data) != 2 || len(body.Data[0].Embedding) != 3 {
		t.Errorf("raw body %s (%v)", res.RawBody, err)
	}
	sent := h.ups["b"].Requests()
	if len(sent) != 1 || sent[0].Path != "/v1/embeddings" || sent[0].Model != "b" ||
		string(sent[0].Body) != `{"model":"b","input":["a","b"],"dimensions":3,"user":"u1"}` {
		t.Errorf("sent %+v", sent)
	}
	var served int
	for _, e := range h.sink.Events() {
		if e.Outcome == dispatch.OutcomeServed {
			served++
			if e.CostMicros != 7 || e.Usage.Input != 7 {
				t.Errorf("served attempt priced %d for %+v", e.CostMicros, e.Usage)
			}
		}
	}
	if served != 1 {
		t.Errorf("%d served attempt events", served)
	}
}

// TestEmbeddingsWithoutUsage: an embeddings answer without usage cannot be
// billed, so it fails its attempt (and is retried) instead of being served
// free.
func TestEmbeddingsWithoutUsage(t *testing.T) {
	h := newHarness(t, dispatch.Config{}, "a")
	prov := &linesProvider{bodies: []string{`{"object":"list","data":[{"index":0,"embedding":[1]}]}`,
		`{"object":"list","data":[{"index":0,"embedding":[1]}],"usage":{"prompt_tokens":4,"total_tokens":4}}`}}
	h.exec = dispatch.NewExecutor(dispatch.Config{FirstByteTimeout: testTimeout, StreamIdleTimeout: testTimeout, NonStreamTimeout: testTimeout},
		dispatch.Deps{Providers: map[string]dispatch.Provider{"openai": prov}, Credentials: h.creds, Codecs: codecs(),
			Sink: h.sink, Clock: h.clock, Pricer: pricer{}, Rand: dispatchtest.Rand(jitter)})
	res, err := h.exec.Run(context.Background(), h.meta, h.plan("a"), embeddingsOp(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Attempts != 2 || res.Usage.Input != 4 {
		t.Errorf("attempts %d usage %+v, want the unbillable answer retried", res.Attempts, res.Usage)
	}
	ev := h.sink.Events()
	if len(ev) != 2 || ev[0].Outcome == dispatch.OutcomeServed || ev[0].Reason != dispatch.ReasonTransport || ev[1].Outcome != dispatch.OutcomeServed {
		t.Errorf("attempt events %+v", ev)
	}
}
