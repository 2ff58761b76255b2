package anthropic

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/heddle-gw/heddle/internal/golden"
	"github.com/heddle-gw/heddle/llm"
)

func TestResponseGoldens(t *testing.T) {
	for _, f := range golden.Glob(t, "testdata/responses/*.json") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			c := testCodec()
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.DecodeResponse(body)
			if err != nil {
				t.Fatalf("DecodeResponse: %v", err)
			}
			golden.Check(t, golden.Beside(f, ".canonical.golden"), dump(t, resp))
			enc, err := c.EncodeResponse(resp)
			if err != nil {
				t.Fatalf("EncodeResponse: %v", err)
			}
			golden.Check(t, golden.Beside(f, ".encoded.golden"), golden.Indent(t, enc))
			again, err := c.DecodeResponse(enc)
			if err != nil {
				t.Fatalf("DecodeResponse(encoded): %v", err)
			}
			if a, b := dump(t, resp), dump(t, again); !bytes.Equal(compact(a), compact(b)) {
				t.Errorf("round trip changed the response:\n%s\n%s", a, b)
			}
		})
	}
}

func TestDecodeResponseMapping(t *testing.T) {
	body, err := os.ReadFile("testdata/responses/tool_use.json")
	if err != nil {
		t.Fatal(err)
	}
	r, err := New().DecodeResponse(body)
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Usage{Input: 472, Output: 91, CacheRead: 2048, CacheWrite: 100}
	if r.ID != "msg_01Aq9w938a90dw8q" || r.Model != "claude-sonnet-4-5-20250929" || r.StopReason != llm.StopToolUse || r.Usage != want {
		t.Errorf("response = %+v", r)
	}
	if len(r.Content) != 3 || r.Content[0].Family != "anthropic" || r.Content[2].ID != "toolu_01A09q90qw90lq917835lq9" ||
		r.Content[2].Arguments != `{"city":"Paris"}` {
		t.Errorf("content = %+v", r.Content)
	}
}

func TestEncodeResponseForeignReasoning(t *testing.T) {
	r := &llm.Response{Model: "gpt-5", StopReason: llm.StopSequence, StopSequence: "END", Content: []llm.Part{
		{Type: llm.PartThinking, Text: "summary", Signature: "gemini-sig", Family: "google"},
		{Type: llm.PartRedactedThinking, Data: "enc", Family: "openai"},
		{Type: llm.PartText, Text: "hi"},
		{Type: llm.PartToolCall, Name: "f", Arguments: `{"a":1}`},
	}, Usage: llm.Usage{Input: 1, Output: 2, Reasoning: 1}}
	got, err := testCodec().EncodeResponse(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"msg_gen2","type":"message","role":"assistant","model":"gpt-5","content":[` +
		`{"type":"thinking","thinking":"summary","signature":""},{"type":"text","text":"hi"},` +
		`{"type":"tool_use","id":"toolu_gen1","name":"f","input":{"a":1}}],"stop_reason":"stop_sequence","stop_sequence":"END",` +
		`"usage":{"input_tokens":1,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":2}}`
	if string(got) != want {
		t.Errorf("EncodeResponse =\n%s\nwant\n%s", got, want)
	}
}

func TestStopReasons(t *testing.T) {
	tests := []struct {
		wire      string
		canonical llm.StopReason
		back      string
	}{
		{"end_turn", llm.StopEnd, "end_turn"},
		{"max_tokens", llm.StopMaxTokens, "max_tokens"},
		{"stop_sequence", llm.StopSequence, "stop_sequence"},
		{"tool_use", llm.StopToolUse, "tool_use"},
		{"refusal", llm.StopRefusal, "refusal"},
		{"pause_turn", llm.StopEnd, "end_turn"},
		{"model_context_window_exceeded", llm.StopMaxTokens, "max_tokens"},
	}
	for _, tt := range tests {
		got := stopFromWire(tt.wire)
		if got != tt.canonical {
			t.Errorf("stopFromWire(%q) = %q, want %q", tt.wire, got, tt.canonical)
		}
		if back := stopToWire(got); back == nil || *back != tt.back {
			t.Errorf("stopToWire(%q) = %v, want %q", got, back, tt.back)
		}
	}
	if stopToWire("") != nil || stopFromWire("") != "" {
		t.Error("an absent stop reason must stay absent")
	}
	if w := stopToWire(llm.StopError); w == nil || *w != "end_turn" {
		t.Errorf("stopToWire(error) = %v", w)
	}
}

func TestDecodeResponseErrors(t *testing.T) {
	tests := []struct {
		name, body, field string
	}{
		{"malformed", `{"id":`, ""},
		{"wrong type", `{"type":"error"}`, "type"},
		{"content wrong type", `{"type":"message","content":{}}`, "content"},
		{"usage wrong type", `{"type":"message","usage":{"input_tokens":"x"}}`, "usage.input_tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New().DecodeResponse([]byte(tt.body))
			var bad *llm.BadRequestError
			if !errors.As(err, &bad) || bad.Field != tt.field {
				t.Fatalf("err = %v, want field %q", err, tt.field)
			}
		})
	}
}

func TestEncodeError(t *testing.T) {
	tests := []struct {
		status        int
		kind, message string
		want          string
	}{
		{400, "invalid_request_error", "messages: required", `{"type":"error","error":{"type":"invalid_request_error","message":"messages: required"}}`},
		{401, "", "invalid API key", `{"type":"error","error":{"type":"authentication_error","message":"invalid API key"}}`},
		{413, "", "too big", `{"type":"error","error":{"type":"request_too_large","message":"too big"}}`},
		{429, "", "slow down", `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`},
		{503, "", "busy", `{"type":"error","error":{"type":"overloaded_error","message":"busy"}}`},
		{502, "", "<upstream> & co", `{"type":"error","error":{"type":"api_error","message":"<upstream> & co"}}`},
	}
	for _, tt := range tests {
		if got := New().EncodeError(tt.status, tt.kind, tt.message); string(got) != tt.want {
			t.Errorf("EncodeError(%d, %q) = %s, want %s", tt.status, tt.kind, got, tt.want)
		}
	}
}
