package dispatch_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/openaichat"
)

// addingCodec's fast path adds the target's model as a second "model"
// member instead of replacing the caller's, before or after it.
type addingCodec struct {
	*openaichat.Codec
	first bool
}

func (c addingCodec) SetModel(body []byte, model string) ([]byte, error) {
	member := []byte(`"model":"` + model + `"`)
	if c.first {
		return slices.Concat([]byte("{"), member, []byte(","), body[1:]), nil
	}
	end := bytes.LastIndexByte(body, '}')
	return slices.Concat(body[:end], []byte(","), member, body[end:]), nil
}

// TestTargetGuardRepeatedModel: when a body names the model twice, the guard
// checks the one the decoder (and so the upstream) reads, the last: a body
// whose last model is the caller's is refused, one whose last model is the
// target's is sent.
func TestTargetGuardRepeatedModel(t *testing.T) {
	tests := []struct {
		name       string
		first      bool
		mismatched bool
	}{
		{"target's model first, caller's read", true, true},
		{"caller's model first, target's read", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, dispatch.Config{}, "a")
			h.exec = dispatch.NewExecutor(dispatch.Config{}, dispatch.Deps{
				Providers: map[string]dispatch.Provider{"openai": openaiProvider()}, Credentials: h.creds,
				Codecs: map[llm.Format]llm.Codec{llm.FormatChat: addingCodec{openaichat.New(), tc.first}}, Sink: h.sink, Clock: h.clock,
			})
			op := chatOp(false)
			op.RawBody = []byte(`{"model":"requested","messages":[{"role":"user","content":"hi"}]}`)
			_, err := h.exec.Run(context.Background(), h.meta, h.plan("a"), op, nil)
			sent := h.ups["a"].Requests()
			if tc.mismatched {
				if !errors.Is(err, dispatch.ErrTargetMismatch) || len(sent) != 0 {
					t.Fatalf("err %v, %d requests sent; want target mismatch and none", err, len(sent))
				}
				if got := brief(h.sink.Events()); !slices.Equal(got, []string{"a:failed:target_mismatch"}) {
					t.Errorf("events %v", got)
				}
				return
			}
			if err != nil || len(sent) != 1 {
				t.Fatalf("err %v, %d requests sent; want one", err, len(sent))
			}
			req, err := openaichat.New().DecodeRequest(sent[0].Body)
			if err != nil || req.Model != "a" {
				t.Errorf("upstream reads model %v (%v) from %s", req, err, sent[0].Body)
			}
			if got := brief(h.sink.Events()); !slices.Equal(got, []string{"a:served:"}) {
				t.Errorf("events %v", got)
			}
		})
	}
}
