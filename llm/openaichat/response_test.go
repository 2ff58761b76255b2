package openaichat

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
			// Reasoning text has no place in a Chat Completions answer.
			want := *resp
			want.Content = nil
			for _, p := range resp.Content {
				if p.Type != llm.PartThinking {
					want.Content = append(want.Content, p)
				}
			}
			if a, b := dump(t, &want), dump(t, again); !bytes.Equal(a, b) {
				t.Errorf("round trip changed the response:\n%s\n%s", a, b)
			}
		})
	}
}

func TestDecodeResponseUsage(t *testing.T) {
	tests := []struct {
		file  string
		usage llm.Usage
		stop  llm.StopReason
		parts int
	}{
		{"tool_calls.json", llm.Usage{Input: 18, CacheRead: 64, Output: 17}, llm.StopToolUse, 1},
		{"text_length.json", llm.Usage{Input: 20, Output: 50, Reasoning: 30}, llm.StopMaxTokens, 1},
		{"deepseek_reasoning.json", llm.Usage{Input: 10, CacheRead: 20, Output: 40, Reasoning: 25}, llm.StopEnd, 2},
	}
	for _, tt := range tests {
		body, err := os.ReadFile("testdata/responses/" + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		r, err := New().DecodeResponse(body)
		if err != nil {
			t.Fatal(err)
		}
		if r.Usage != tt.usage || r.StopReason != tt.stop || len(r.Content) != tt.parts {
			t.Errorf("%s: usage %+v stop %q parts %d; want %+v %q %d", tt.file, r.Usage, r.StopReason, len(r.Content), tt.usage, tt.stop, tt.parts)
		}
	}
}

func TestEncodeResponseUsage(t *testing.T) {
	r := &llm.Response{ID: "msg_1", Model: "claude", StopReason: llm.StopRefusal,
		Content: []llm.Part{{Type: llm.PartThinking, Text: "x"}},
		Usage:   llm.Usage{Input: 10, CacheRead: 100, CacheWrite: 5, Output: 7}}
	got, err := testCodec().EncodeResponse(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"msg_1","object":"chat.completion","created":1767225600,"model":"claude","choices":[{"index":0,` +
		`"message":{"role":"assistant","content":"","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"content_filter"}],` +
		`"usage":{"prompt_tokens":115,"completion_tokens":7,"total_tokens":122,"prompt_tokens_details":{"cached_tokens":100,"audio_tokens":0},` +
		`"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}`
	if string(got) != want {
		t.Errorf("EncodeResponse =\n%s\nwant\n%s", got, want)
	}
}

func TestFinishReasons(t *testing.T) {
	tests := []struct {
		wire      string
		canonical llm.StopReason
		back      string
	}{
		{"stop", llm.StopEnd, "stop"},
		{"length", llm.StopMaxTokens, "length"},
		{"tool_calls", llm.StopToolUse, "tool_calls"},
		{"function_call", llm.StopToolUse, "tool_calls"},
		{"content_filter", llm.StopRefusal, "content_filter"},
	}
	for _, tt := range tests {
		got := stopFromWire(tt.wire)
		if got != tt.canonical {
			t.Errorf("stopFromWire(%q) = %q, want %q", tt.wire, got, tt.canonical)
		}
		if back := finishToWire(got); back == nil || *back != tt.back {
			t.Errorf("finishToWire(%q) = %v, want %q", got, back, tt.back)
		}
	}
	if w := finishToWire(llm.StopSequence); *w != "stop" {
		t.Errorf("stop_sequence -> %q", *w)
	}
	if finishToWire("") != nil {
		t.Error("an absent stop reason must stay absent")
	}
}

func TestDecodeResponseErrors(t *testing.T) {
	tests := []struct{ name, body, field string }{
		{"malformed", `{"choices":[`, ""},
		{"choices wrong type", `{"choices":{}}`, "choices"},
		{"content wrong type", `{"choices":[{"message":{"content":5}}]}`, "choices[0].message.content"},
		{"usage wrong type", `{"usage":{"prompt_tokens":"1"}}`, "usage.prompt_tokens"},
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
		{400, "invalid_request_error", "messages[0].role: unknown role", `{"error":{"message":"messages[0].role: unknown role","type":"invalid_request_error","param":null,"code":null}}`},
		{401, "authentication_error", "invalid API key", `{"error":{"message":"invalid API key","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`},
		{413, "request_too_large", "too big", `{"error":{"message":"too big","type":"invalid_request_error","param":null,"code":"request_too_large"}}`},
		{429, "", "slow <down>", `{"error":{"message":"slow <down>","type":"requests","param":null,"code":"rate_limit_exceeded"}}`},
		{503, "overloaded_error", "busy", `{"error":{"message":"busy","type":"server_error","param":null,"code":"server_is_overloaded"}}`},
		{502, "api_error", "failed", `{"error":{"message":"failed","type":"server_error","param":null,"code":null}}`},
		{404, "", "no such model", `{"error":{"message":"no such model","type":"invalid_request_error","param":null,"code":null}}`},
	}
	for _, tt := range tests {
		if got := New().EncodeError(tt.status, tt.kind, tt.message); string(got) != tt.want {
			t.Errorf("EncodeError(%d, %q) = %s, want %s", tt.status, tt.kind, got, tt.want)
		}
	}
}
