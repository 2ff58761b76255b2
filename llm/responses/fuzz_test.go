package responses

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/heddle-gw/heddle/llm"
)

// seed adds every fixture under testdata/dir to the corpus.
func seed(f *testing.F, dir string, extra ...string) {
	paths, _ := filepath.Glob(filepath.Join("testdata", dir, "*"))
	for _, p := range paths {
		if filepath.Ext(p) == ".golden" {
			continue
		}
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

// FuzzDecodeRequest: decoding never panics, and whatever decodes encodes to
// a body that decodes again.
func FuzzDecodeRequest(f *testing.F) {
	seed(f, "requests", `{"model":"m","input":"x"}`, `{"model":"m","input":[{"role":"user","content":[]}]}`, `{"model":"m","input":[{"type":"reasoning","summary":[{"text":"a"}],"encrypted_content":"e"}]}`)
	c := New()
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := c.DecodeRequest(body)
		if err != nil {
			return
		}
		out, err := c.EncodeRequest(req)
		if err != nil {
			t.Fatalf("EncodeRequest of a decoded request: %v", err)
		}
		if _, err := c.DecodeRequest(out); err != nil {
			t.Fatalf("re-decode: %v\n%s", err, out)
		}
		if _, err := c.ModelOf(body); err != nil {
			t.Fatalf("ModelOf fails on a body DecodeRequest accepts: %v", err)
		}
		if _, err := c.SetModel(body, "x"); err != nil {
			t.Fatalf("SetModel: %v", err)
		}
	})
}

// FuzzDecodeResponse: decoding never panics, and whatever decodes encodes.
func FuzzDecodeResponse(f *testing.F) {
	seed(f, "responses", `{"output":[{"type":"message","content":[{"type":"refusal","refusal":"no"}]}]}`)
	c := New()
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, err := c.DecodeResponse(body)
		if err != nil {
			return
		}
		out, err := c.EncodeResponse(resp)
		if err != nil {
			t.Fatalf("EncodeResponse: %v", err)
		}
		if _, err := c.DecodeResponse(out); err != nil {
			t.Fatalf("re-decode: %v\n%s", err, out)
		}
	})
}

// FuzzStreamDecoder: the decoder never panics and always ends; a stream it
// decodes to the end re-encodes as a valid Responses stream.
func FuzzStreamDecoder(f *testing.F) {
	seed(f, "streams", "data: {\"type\":\"response.completed\"}\n\n", "event: error\ndata: {}\n\n")
	c := New()
	f.Fuzz(func(t *testing.T, in []byte) {
		events, err := collect(c.NewStreamDecoder(bytes.NewReader(in)))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		enc := c.NewStreamEncoder(&buf)
		for _, e := range events {
			if err := enc.Encode(e); err != nil {
				t.Fatal(err)
			}
		}
		if len(events) == 0 {
			return
		}
		if err := validateStream(buf.Bytes()); err != nil {
			t.Fatalf("re-encoded stream is invalid: %v\n%s", err, buf.Bytes())
		}
	})
}

// FuzzStreamEncoder: any sequence of canonical events, ended by done, is
// written as a valid Responses stream.
func FuzzStreamEncoder(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 2, 0, 4, 0, 6, 0})
	f.Add([]byte{1, 1, 3, 1, 1, 2, 5, 2, 4, 1, 7, 0})
	f.Add([]byte{2, 3, 8, 3, 9, 3, 4, 3})
	types := []llm.EventType{llm.EventMessageStart, llm.EventBlockStart, llm.EventTextDelta, llm.EventToolDelta,
		llm.EventBlockStop, llm.EventThinkDelta, llm.EventMessageDelta, llm.EventPing, llm.EventBlockStart, llm.EventBlockStart, llm.EventError}
	kinds := []llm.PartType{llm.PartText, llm.PartToolCall, llm.PartThinking, llm.PartRedactedThinking, llm.PartImage}
	f.Fuzz(func(t *testing.T, ops []byte) {
		var buf bytes.Buffer
		enc := New().NewStreamEncoder(&buf)
		for i := 0; i+1 < len(ops); i += 2 {
			e := llm.Event{Type: types[int(ops[i])%len(types)], Index: int(ops[i+1] % 4), Text: "t\"<", ID: "id", Model: "m", ErrMessage: "boom"}
			if e.Type == llm.EventBlockStart {
				e.Block = &llm.Part{Type: kinds[int(ops[i])%len(kinds)], Family: []string{"openai", "anthropic"}[ops[i+1]%2], Data: "enc", ID: "x"}
			}
			if e.Type == llm.EventMessageDelta {
				e.StopReason, e.Usage = llm.StopReason([]string{"end_turn", "max_tokens", "tool_use", "refusal", "error"}[ops[i+1]%5]), &llm.Usage{Input: 1}
			}
			if err := enc.Encode(e); err != nil {
				t.Fatal(err)
			}
		}
		if err := enc.Encode(llm.Event{Type: llm.EventDone}); err != nil {
			t.Fatal(err)
		}
		if err := validateStream(buf.Bytes()); err != nil {
			t.Fatalf("invalid stream: %v\n%s", err, buf.Bytes())
		}
	})
}
