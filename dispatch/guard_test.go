package dispatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/openaichat"
)

// staleCodec forgets to replace the model on the fast path.
type staleCodec struct{ *openaichat.Codec }

func (staleCodec) SetModel(body []byte, _ string) ([]byte, error) { return body, nil }

// readerCodec is a Chat codec whose model reader is replaced.
type readerCodec struct {
	*openaichat.Codec
	modelOf func([]byte) (string, error)
}

func (c readerCodec) ModelOf(body []byte) (string, error) { return c.modelOf(body) }

// TestTargetGuard: a wire body whose model is not the plan target's upstream
// id is never sent; the walk stops with target_mismatch.
func TestTargetGuard(t *testing.T) {
	tests := []struct {
		name  string
		codec llm.Codec
	}{
		{"fast path leaves the caller's model", staleCodec{openaichat.New()}},
		{"model reader sees another model", readerCodec{openaichat.New(), func([]byte) (string, error) { return "other", nil }}},
		{"model reader fails", readerCodec{openaichat.New(), func([]byte) (string, error) { return "", errors.New("no model") }}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, dispatch.Config{}, "a", "b")
			h.exec = dispatch.NewExecutor(dispatch.Config{}, dispatch.Deps{
				Providers: map[string]dispatch.Provider{"openai": openaiProvider()}, Credentials: h.creds,
				Codecs: map[llm.Format]llm.Codec{llm.FormatChat: tc.codec}, Sink: h.sink, Clock: h.clock,
			})
			res, _, err := h.run(h.plan("a", "b"), false)
			if !errors.Is(err, dispatch.ErrTargetMismatch) {
				t.Fatalf("err %v, want target mismatch", err)
			}
			if got := brief(h.sink.Events()); !slices.Equal(got, []string{"a:failed:target_mismatch"}) {
				t.Errorf("events %v", got)
			}
			if na, nb := len(h.ups["a"].Requests()), len(h.ups["b"].Requests()); na+nb != 0 || res.Attempts != 0 {
				t.Errorf("sent %d+%d requests, attempts %d", na, nb, res.Attempts)
			}
		})
	}
}

// TestTranslation: a target in another format than the caller's gets the
// canonical request encoded in its format, and the result has no raw body.
func TestTranslation(t *testing.T) {
	for _, stream := range []bool{false, true} {
		h := newHarness(t, dispatch.Config{}, "a")
		op := chatOp(stream)
		op.Inbound = llm.FormatAnthropic
		op.RawBody = []byte(`{"model":"requested","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`)
		rec := &dispatchtest.Recorder{}
		var out dispatch.StreamWriter
		if stream {
			out = rec
		}
		res, err := h.exec.Run(context.Background(), h.meta, h.plan("a"), op, out)
		if err != nil {
			t.Fatal(err)
		}
		reqs := h.ups["a"].Requests()
		var body struct {
			Model    string `json:"model"`
			Stream   bool   `json:"stream"`
			Messages []struct{ Role, Content string }
		}
		if len(reqs) != 1 || json.Unmarshal(reqs[0].Body, &body) != nil {
			t.Fatalf("requests %+v", reqs)
		}
		if body.Model != "a" || body.Stream != stream || len(body.Messages) != 1 || body.Messages[0].Content != "hi" {
			t.Errorf("stream=%v: upstream body %s", stream, reqs[0].Body)
		}
		if res.RawBody != nil {
			t.Errorf("stream=%v: raw body from a translated answer", stream)
		}
		if stream && rec.Text() != "Hello from a" {
			t.Errorf("client text %q", rec.Text())
		}
	}
}

// TestFastPath: a target in the caller's format gets the caller's bytes with
// only the model replaced, and the answer's raw body comes back.
func TestFastPath(t *testing.T) {
	h := newHarness(t, dispatch.Config{}, "a")
	op := chatOp(false)
	op.RawBody = []byte(`{"model":"requested","messages":[{"role":"user","content":"hi"}],"x_unknown":{"kept":true}}`)
	res, err := h.exec.Run(context.Background(), h.meta, h.plan("a"), op, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sent map[string]json.RawMessage
	if err := json.Unmarshal(h.ups["a"].Requests()[0].Body, &sent); err != nil {
		t.Fatal(err)
	}
	if string(sent["model"]) != `"a"` || string(sent["x_unknown"]) != `{"kept":true}` {
		t.Errorf("sent %v", sent)
	}
	var got struct{ Model string }
	if err := json.Unmarshal(res.RawBody, &got); err != nil || got.Model != "a" {
		t.Errorf("raw body %s", res.RawBody)
	}
}

// TestBuffered: an auxiliary call walks the same boundary with its purpose.
func TestBuffered(t *testing.T) {
	h := newHarness(t, dispatch.Config{}, "a", "b")
	h.ups["a"].Script("", dispatchtest.Status(503))
	h.ups["b"].Script("", dispatchtest.OK("a short summary"))
	meta := h.meta
	meta.Provenance = dispatch.Provenance{}
	req := &llm.Request{Model: "ignored", Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: "summarise"}}}}}
	resp, err := h.exec.Buffered(context.Background(), meta, h.plan("a", "b"), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Content) != 1 || resp.Content[0].Text != "a short summary" || req.Model != "ignored" {
		t.Fatalf("response %+v, request model %q", resp, req.Model)
	}
	evs := h.sink.Events()
	if got := brief(evs); !slices.Equal(got, []string{"a:failed:upstream_5xx", "b:served:"}) {
		t.Errorf("events %v", got)
	}
	for _, e := range evs {
		if e.Provenance.Purpose != dispatch.PurposeHandover || e.Stream {
			t.Errorf("event purpose %q stream %v", e.Provenance.Purpose, e.Stream)
		}
	}
	if _, err := h.exec.Buffered(context.Background(), meta, h.plan("a"), nil); !errors.Is(err, dispatch.ErrBadOperation) {
		t.Errorf("nil request: %v", err)
	}
}
