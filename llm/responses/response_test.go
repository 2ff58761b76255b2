package responses

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
			golden.Check(t, golden.Beside(path, ".encoded.golden"), pretty(t, body))
			again, err := c.DecodeResponse(body)
			if err != nil {
				t.Fatalf("encoded response does not decode: %v", err)
			}
			if again.StopReason != resp.StopReason || again.Usage != resp.Usage || len(again.Content) != len(resp.Content) {
				t.Errorf("re-decoded response differs: %+v vs %+v", again, resp)
			}
		})
	}
}

// TestDecodeResponseFields checks stop reasons, usage and content per fixture.
func TestDecodeResponseFields(t *testing.T) {
	tests := []struct {
		file    string
		stop    llm.StopReason
		usage   llm.Usage
		id      string
		model   string
		created int64
		content []llm.Part
	}{
		{"tool_call.json", llm.StopToolUse, llm.Usage{Input: 200, CacheRead: 1000, Output: 80, Reasoning: 64}, "resp_68a1", "gpt-5-codex", 1764400000, []llm.Part{
			{Type: llm.PartThinking, Text: "Need to list files.", ID: "rs_68a1", Family: "openai"},
			{Type: llm.PartRedactedThinking, Data: "gAAAA-enc", ID: "rs_68a1", Family: "openai"},
			{Type: llm.PartToolCall, ID: "call_xyz", Name: "shell", Arguments: `{"command":["ls"]}`},
		}},
		{"text.json", llm.StopEnd, llm.Usage{Input: 30, Output: 6}, "resp_text1", "gpt-4o-2024-08-06", 1764400001, []llm.Part{
			{Type: llm.PartText, Text: "There are 2 files."},
		}},
		{"incomplete.json", llm.StopMaxTokens, llm.Usage{Input: 10, Output: 4}, "resp_inc", "gpt-4o", 1764400002, []llm.Part{
			{Type: llm.PartText, Text: "The answer is"},
		}},
		{"refusal.json", llm.StopRefusal, llm.Usage{Input: 12, Output: 7}, "resp_ref", "gpt-4o", 1764400003, []llm.Part{
			{Type: llm.PartText, Text: "I can't help with that."},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r, err := New().DecodeResponse(golden.Read(t, "testdata/responses/"+tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if r.StopReason != tt.stop || r.Usage != tt.usage || r.ID != tt.id || r.Model != tt.model || r.Created != tt.created {
				t.Errorf("got stop %q usage %+v id %q model %q created %d", r.StopReason, r.Usage, r.ID, r.Model, r.Created)
			}
			if !reflect.DeepEqual(r.Content, tt.content) {
				t.Errorf("content = %+v\nwant %+v", r.Content, tt.content)
			}
		})
	}
}

// TestEncodeResponse pins status, usage and item mapping for canonical answers.
func TestEncodeResponse(t *testing.T) {
	tests := []struct {
		name       string
		resp       llm.Response
		status     string
		incomplete string
		items      []string
		usage      string
	}{
		{"anthropic tool use", llm.Response{
			ID: "msg_01", Model: "claude-sonnet-4-5", StopReason: llm.StopToolUse,
			Content: []llm.Part{
				{Type: llm.PartThinking, Text: "think", Signature: "sig", Family: "anthropic"},
				{Type: llm.PartText, Text: "Let me look."},
				{Type: llm.PartToolCall, ID: "toolu_9", Name: "Bash", Arguments: `{"command":"ls"}`},
			},
			Usage: llm.Usage{Input: 10, CacheRead: 100, CacheWrite: 50, Output: 20},
		}, "completed", "", []string{"reasoning:rs_msg_01_0", "message:msg_msg_01_1", "function_call:fc_msg_01_2"},
			`{"input_tokens":160,"input_tokens_details":{"cached_tokens":100},"output_tokens":20,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":180}`},
		{"max tokens", llm.Response{ID: "resp_x", StopReason: llm.StopMaxTokens, Content: []llm.Part{{Type: llm.PartText, Text: "cut"}}},
			"incomplete", "max_output_tokens", []string{"message:msg_x_0"},
			`{"input_tokens":0,"input_tokens_details":{"cached_tokens":0},"output_tokens":0,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":0}`},
		{"refusal", llm.Response{ID: "r", StopReason: llm.StopRefusal}, "incomplete", "content_filter", nil,
			`{"input_tokens":0,"input_tokens_details":{"cached_tokens":0},"output_tokens":0,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":0}`},
		{"error", llm.Response{ID: "r", StopReason: llm.StopError, Usage: llm.Usage{Input: 1, Output: 2, Reasoning: 1}}, "failed", "", nil,
			`{"input_tokens":1,"input_tokens_details":{"cached_tokens":0},"output_tokens":2,"output_tokens_details":{"reasoning_tokens":1},"total_tokens":3}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := New().EncodeResponse(&tt.resp)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				ID, Object, Status string
				Incomplete         *struct{ Reason string } `json:"incomplete_details"`
				Output             []struct{ Type, ID string }
				Usage              json.RawMessage
			}
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			var items []string
			for _, it := range got.Output {
				items = append(items, it.Type+":"+it.ID)
			}
			reason := ""
			if got.Incomplete != nil {
				reason = got.Incomplete.Reason
			}
			if got.Object != "response" || got.Status != tt.status || reason != tt.incomplete || !reflect.DeepEqual(items, tt.items) || string(got.Usage) != tt.usage {
				t.Errorf("got %s", body)
			}
		})
	}
}

// TestDecodeResponseErrors checks bad response bodies name the field.
func TestDecodeResponseErrors(t *testing.T) {
	tests := []struct{ name, body, field string }{
		{"not json", `{`, ""},
		{"array", `[]`, ""},
		{"output not array", `{"output":{}}`, "output"},
		{"item not object", `{"output":[1]}`, "output[0]"},
		{"content wrong", `{"output":[{"type":"message","content":"x"}]}`, "output[0].content"},
		{"call without id", `{"output":[{"type":"function_call","name":"f"}]}`, "output[0].call_id"},
		{"usage wrong", `{"usage":{"input_tokens":"many"}}`, "usage.input_tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New().DecodeResponse([]byte(tt.body))
			var bad *llm.BadRequestError
			if !errors.As(err, &bad) || bad.Field != tt.field {
				t.Fatalf("err = %v, want a BadRequestError on %q", err, tt.field)
			}
		})
	}
}
