package gemini

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/heddle-gw/heddle/internal/golden"
	"github.com/heddle-gw/heddle/llm"
)

// TestResponseGolden decodes every response fixture and encodes it again.
func TestResponseGolden(t *testing.T) {
	c := New()
	for _, path := range golden.Glob(t, filepath.Join("testdata", "responses", "*.json")) {
		t.Run(path, func(t *testing.T) {
			resp, err := c.DecodeResponse(golden.Read(t, path))
			if err != nil {
				t.Fatalf("DecodeResponse: %v", err)
			}
			golden.Check(t, golden.Beside(path, ".canonical.golden"), canonical(t, resp))
			body, err := c.EncodeResponse(resp)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, golden.Beside(path, ".encoded.golden"), golden.Indent(t, body))
			again, err := c.DecodeResponse(body)
			if err != nil {
				t.Fatalf("encoded response does not decode: %v", err)
			}
			if again.Usage != resp.Usage || again.ID != resp.ID || again.Model != resp.Model {
				t.Errorf("re-decoded response differs: %+v vs %+v", again, resp)
			}
		})
	}
}

// TestDecodeResponseFields checks stop reasons, usage, ids and content.
func TestDecodeResponseFields(t *testing.T) {
	tests := []struct {
		file    string
		stop    llm.StopReason
		usage   llm.Usage
		content []llm.Part
	}{
		{"tool_call.json", llm.StopToolUse, llm.Usage{Input: 500, CacheRead: 1000, Output: 160, Reasoning: 120}, []llm.Part{
			{Type: llm.PartThinking, Text: "I need the weather.", Family: "google"},
			{Type: llm.PartToolCall, ID: "call_fPJZaJ2mA6OYz7IPj8eT_1", Name: "get_weather", Arguments: `{"city":"Rome"}`, Signature: "CiQBsigA", Family: "google"},
			{Type: llm.PartToolCall, ID: "call_fPJZaJ2mA6OYz7IPj8eT_2", Name: "get_time", Arguments: `{"tz":"Europe/Rome"}`},
		}},
		{"text.json", llm.StopEnd, llm.Usage{Input: 80, Output: 9}, []llm.Part{
			{Type: llm.PartText, Text: "It is 24C in Rome."},
			{Type: llm.PartText, Signature: "CiQBfinal", Family: "google"},
		}},
		{"max_tokens.json", llm.StopMaxTokens, llm.Usage{Input: 5, Output: 2}, []llm.Part{{Type: llm.PartText, Text: "The first"}}},
		{"safety.json", llm.StopRefusal, llm.Usage{Input: 12}, nil},
		{"blocked.json", llm.StopRefusal, llm.Usage{Input: 12}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r, err := New().DecodeResponse(golden.Read(t, "testdata/responses/"+tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if r.StopReason != tt.stop || r.Usage != tt.usage || !reflect.DeepEqual(r.Content, tt.content) {
				t.Errorf("stop %q usage %+v content\n%s", r.StopReason, r.Usage, canonical(t, r.Content))
			}
		})
	}
}

// TestEncodeResponse pins finish reasons, usage and parts for canonical answers.
func TestEncodeResponse(t *testing.T) {
	resp := llm.Response{
		ID: "msg_01", Model: "claude-sonnet-4-5", StopReason: llm.StopToolUse,
		Content: []llm.Part{
			{Type: llm.PartThinking, Text: "hmm", Signature: "anthropic-sig", Family: "anthropic"},
			{Type: llm.PartRedactedThinking, Data: "opaque", Family: "anthropic"},
			{Type: llm.PartText, Text: "Calling."},
			{Type: llm.PartToolCall, ID: "toolu_1", Name: "Bash", Arguments: `{"command":"ls"}`},
		},
		Usage: llm.Usage{Input: 10, CacheRead: 20, CacheWrite: 5, Output: 30, Reasoning: 12},
	}
	body, err := New().EncodeResponse(&resp)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"candidates":[{"content":{"role":"model","parts":[{"text":"hmm","thought":true},{"text":"Calling."},` +
		`{"functionCall":{"id":"toolu_1","name":"Bash","args":{"command":"ls"}}}]},"finishReason":"STOP","index":0}],` +
		`"usageMetadata":{"promptTokenCount":35,"candidatesTokenCount":18,"totalTokenCount":65,"cachedContentTokenCount":20,"thoughtsTokenCount":12},` +
		`"modelVersion":"claude-sonnet-4-5","responseId":"msg_01"}`
	if string(body) != want {
		t.Errorf("got  %s\nwant %s", body, want)
	}
	for stop, reason := range map[llm.StopReason]string{llm.StopEnd: "STOP", llm.StopMaxTokens: "MAX_TOKENS", llm.StopRefusal: "SAFETY", llm.StopError: "OTHER", llm.StopSequence: "STOP"} {
		body, _ := New().EncodeResponse(&llm.Response{StopReason: stop})
		var got struct {
			Candidates []struct{ FinishReason string }
		}
		if json.Unmarshal(body, &got) != nil || got.Candidates[0].FinishReason != reason {
			t.Errorf("%s -> %s, want %s", stop, body, reason)
		}
	}
}

// TestDecodeResponseErrors checks bad bodies are BadRequestErrors.
func TestDecodeResponseErrors(t *testing.T) {
	for _, body := range []string{`{`, `[]`, `{"candidates":{}}`, `{"candidates":[{"content":{"parts":[5]}}]}`, `{"usageMetadata":{"promptTokenCount":"x"}}`} {
		var bad *llm.BadRequestError
		if _, err := New().DecodeResponse([]byte(body)); !errors.As(err, &bad) {
			t.Errorf("DecodeResponse(%s) err = %v", body, err)
		}
	}
}

// TestEncodeError checks Google's error shape.
func TestEncodeError(t *testing.T) {
	tests := []struct {
		status     int
		kind, want string
	}{
		{400, "invalid_request_error", `{"error":{"code":400,"message":"m","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"invalid_request_error","domain":"heddle"}]}}`},
		{401, "", `{"error":{"code":401,"message":"m","status":"UNAUTHENTICATED"}}`},
		{404, "", `{"error":{"code":404,"message":"m","status":"NOT_FOUND"}}`},
		{413, "", `{"error":{"code":413,"message":"m","status":"INVALID_ARGUMENT"}}`},
		{429, "", `{"error":{"code":429,"message":"m","status":"RESOURCE_EXHAUSTED"}}`},
		{502, "", `{"error":{"code":502,"message":"m","status":"INTERNAL"}}`},
		{503, "", `{"error":{"code":503,"message":"m","status":"UNAVAILABLE"}}`},
	}
	for _, tt := range tests {
		if got := string(New().EncodeError(tt.status, tt.kind, "m")); got != tt.want {
			t.Errorf("EncodeError(%d) = %s\nwant %s", tt.status, got, tt.want)
		}
	}
	if body, err := New().SetModel([]byte(`{"x":1}`), "m"); err != nil || string(body) != `{"x":1}` {
		t.Errorf("SetModel changed the body: %s %v", body, err)
	}
	if m, err := New().ModelOf([]byte(`{"model":"x"}`)); m != "" || err != nil {
		t.Errorf("ModelOf = %q %v", m, err)
	}
}
