package responses

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/heddle-gw/heddle/internal/golden"
	"github.com/heddle-gw/heddle/llm"
)

// anthropicStyle is a canonical request as an Anthropic caller produces it:
// system blocks, tool results inside a user turn, Anthropic-signed thinking,
// a base64 image and a thinking budget.
func anthropicStyle() *llm.Request {
	return &llm.Request{
		Model:  "gpt-5",
		System: []llm.Part{{Type: llm.PartText, Text: "You are Claude Code.", CacheControl: "ephemeral"}, {Type: llm.PartText, Text: "Be careful."}},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Part{
				{Type: llm.PartText, Text: "What is in this picture? Then list files."},
				{Type: llm.PartImage, MediaType: "image/jpeg", Data: "/9j/4AAQ"},
			}},
			{Role: llm.RoleAssistant, Content: []llm.Part{
				{Type: llm.PartThinking, Text: "The user wants...", Signature: "EqQBCkYI", Family: "anthropic"},
				{Type: llm.PartRedactedThinking, Data: "EmwKAhgB", Family: "anthropic"},
				{Type: llm.PartText, Text: "A cat. Listing files."},
				{Type: llm.PartToolCall, ID: "toolu_01", Name: "Bash", Arguments: `{"command":"ls"}`},
				{Type: llm.PartToolCall, ID: "toolu_02", Name: "Read", Arguments: ""},
			}},
			{Role: llm.RoleUser, Content: []llm.Part{
				{Type: llm.PartToolResult, ID: "toolu_01", Result: []llm.Part{{Type: llm.PartText, Text: "a.go"}, {Type: llm.PartText, Text: "b.go"}}},
				{Type: llm.PartToolResult, ID: "toolu_02", IsError: true, Result: []llm.Part{{Type: llm.PartText, Text: "no such file"}}},
				{Type: llm.PartText, Text: "Go on."},
			}},
		},
		Tools: []llm.Tool{
			{Name: "Bash", Description: "Run a command", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)},
			{Name: "Noop"},
		},
		ToolChoice:  &llm.ToolChoice{Mode: llm.ToolChoiceRequired},
		MaxTokens:   8000,
		Temperature: ptr(1.0),
		Stop:        []string{"\n\nHuman:"},
		Thinking:    &llm.Thinking{Enabled: true, BudgetTokens: 5000},
		Stream:      true,
		User:        "user-42",
	}
}

// TestEncodeRequestFromAnthropic pins how a foreign request is rendered.
func TestEncodeRequestFromAnthropic(t *testing.T) {
	body, err := New().EncodeRequest(anthropicStyle())
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/encode/anthropic_style.golden", pretty(t, body))

	var got struct {
		Instructions string `json:"instructions"`
		Input        []struct {
			Type   string          `json:"type"`
			Role   string          `json:"role"`
			CallID string          `json:"call_id"`
			Output json.RawMessage `json:"output"`
		} `json:"input"`
		Tools []struct {
			Strict     *bool           `json:"strict"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"tools"`
		ToolChoice json.RawMessage `json:"tool_choice"`
		Reasoning  struct{ Effort, Summary string }
		Store      *bool    `json:"store"`
		Include    []string `json:"include"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if got.Instructions != "You are Claude Code.\n\nBe careful." {
		t.Errorf("instructions = %q", got.Instructions)
	}
	var kinds []string
	for _, it := range got.Input {
		kinds = append(kinds, it.Type+":"+it.Role+it.CallID)
	}
	// The Anthropic thinking is dropped; results come before the user's text.
	want := []string{"message:user", "message:assistant", "function_call:toolu_01", "function_call:toolu_02",
		"function_call_output:toolu_01", "function_call_output:toolu_02", "message:user"}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("input items = %v\nwant %v", kinds, want)
	}
	if string(got.Input[4].Output) != `"a.go\nb.go"` {
		t.Errorf("joined tool output = %s", got.Input[4].Output)
	}
	if len(got.Tools) != 2 || got.Tools[0].Strict == nil || *got.Tools[0].Strict || string(got.Tools[1].Parameters) != string(emptySchema) {
		t.Errorf("tools = %+v, want strict:false sent and an empty schema for Noop", got.Tools)
	}
	if string(got.ToolChoice) != `"required"` || got.Reasoning.Effort != "medium" || got.Reasoning.Summary != "auto" {
		t.Errorf("tool_choice %s reasoning %+v", got.ToolChoice, got.Reasoning)
	}
	if got.Store == nil || *got.Store || !reflect.DeepEqual(got.Include, []string{"reasoning.encrypted_content"}) {
		t.Errorf("store %v include %v", got.Store, got.Include)
	}
}

// TestRequestRoundTrip encodes canonical requests the format can carry
// exactly and checks that decoding gives them back.
func TestRequestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		req  llm.Request
	}{
		{"tool call and result", llm.Request{
			Model:  "gpt-4.1",
			System: []llm.Part{{Type: llm.PartText, Text: "sys"}},
			Messages: []llm.Message{
				{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: "weather?"}}},
				{Role: llm.RoleAssistant, Content: []llm.Part{
					{Type: llm.PartText, Text: "Checking."},
					{Type: llm.PartToolCall, ID: "call_1", Name: "weather", Arguments: `{"city":"Paris"}`},
				}},
				{Role: llm.RoleTool, Content: []llm.Part{{Type: llm.PartToolResult, ID: "call_1", Result: []llm.Part{{Type: llm.PartText, Text: "sunny"}}}}},
			},
			Tools:             []llm.Tool{{Name: "weather", Description: "d", Parameters: json.RawMessage(`{"type":"object"}`), Strict: true}},
			ToolChoice:        &llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "weather"},
			ParallelToolCalls: ptr(true),
			MaxTokens:         100,
			TopP:              ptr(0.5),
			User:              "u",
			Metadata:          map[string]string{"k": "v"},
		}},
		{"images and reasoning", llm.Request{
			Model: "o3",
			Messages: []llm.Message{
				{Role: llm.RoleUser, Content: []llm.Part{
					{Type: llm.PartImage, MediaType: "image/png", Data: "AAAA"},
					{Type: llm.PartImage, URL: "https://x/y.png"},
				}},
				{Role: llm.RoleAssistant, Content: []llm.Part{
					{Type: llm.PartThinking, Text: "hmm", Family: "openai"},
					{Type: llm.PartRedactedThinking, Data: "enc", Family: "openai"},
					{Type: llm.PartText, Text: "Two images."},
				}},
				{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: "thanks"}}},
			},
			Thinking:       &llm.Thinking{Enabled: true, Effort: "high"},
			ResponseFormat: &llm.ResponseFormat{Type: "json_schema", Name: "r", Schema: json.RawMessage(`{"type":"object"}`), Strict: true},
			Stream:         true,
			StreamUsage:    true,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := New().EncodeRequest(&tt.req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := New().DecodeRequest(body)
			if err != nil {
				t.Fatalf("decode: %v\n%s", err, body)
			}
			if !reflect.DeepEqual(canonical(t, got), canonical(t, &tt.req)) {
				t.Errorf("round trip changed the request:\n got %s\nwant %s", canonical(t, got), canonical(t, &tt.req))
			}
		})
	}
}
