package dispatch_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/llm"
)

// cannedProvider answers every call with one Chat Completions answer, in
// memory: what a run allocates is then the executor's own.
type cannedProvider struct{ body []byte }

func (p cannedProvider) Send(context.Context, *dispatch.Call) (*dispatch.Reply, error) {
	return &dispatch.Reply{Status: 200, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(p.body))}, nil
}

type discardSink struct{}

func (discardSink) RecordAttempt(dispatch.AttemptEvent) {}

// TestRunAllocations bounds what one non-stream run on one target
// allocates beside the provider's reply (prepare, guard, walk, answer).
func TestRunAllocations(t *testing.T) {
	answer := []byte(`{"id":"c1","object":"chat.completion","created":1,"model":"up","choices":[{"index":0,"message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`)
	exec := dispatch.NewExecutor(dispatch.Config{OrgConcurrency: 64, BindingConcurrency: 64}, dispatch.Deps{
		Providers: map[string]dispatch.Provider{"openai": cannedProvider{answer}},
		Credentials: dispatchtest.NewCredentials(map[string]dispatch.Credential{
			"openai": {ID: "cred-1", Secret: "sk"}}),
		Codecs: codecs(), Sink: discardSink{},
	})
	plan := dispatch.Plan{Targets: []dispatch.Target{{Model: "model-up", Provider: "openai", Upstream: "up", Format: llm.FormatChat}}}
	meta := dispatch.Meta{OrgID: "org-1", KeyID: "key-1", RequestID: "req", OperationID: "req/0"}
	op := chatOp(false)
	n := testing.AllocsPerRun(200, func() {
		if _, err := exec.Run(context.Background(), meta, plan, op, nil); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%v allocations per run", n)
	if n > 37 {
		t.Fatalf("Executor.Run: %v allocations, want at most 37 (43 before the walk, caps and wirejson changes)", n)
	}
}
