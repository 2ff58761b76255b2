package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/heddle-gw/heddle/internal/golden"
	"github.com/heddle-gw/heddle/llm"
)

// anthropicStyle is a canonical request as an Anthropic caller produces it.
func anthropicStyle() *llm.Request {
	return &llm.Request{
		Model:  "gemini-3-pro-preview",
		System: []llm.Part{{Type: llm.PartText, Text: "You are Claude Code.", CacheControl: "ephemeral"}},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Part{
				{Type: llm.PartText, Text: "What is in this picture? Then list files."},
				{Type: llm.PartImage, MediaType: "image/jpeg", Data: "/9j/4AAQ"},
				{Type: llm.PartImage, URL: "https://example.com/a.PNG?x=1"},
				{Type: llm.PartImage, URL: "data:image/gif;base64,R0lG"},
			}},
			{Role: llm.RoleAssistant, Content: []llm.Part{
				{Type: llm.PartThinking, Text: "The user wants...", Signature: "EqQBCkYI", Family: "anthropic"},
				{Type: llm.PartRedactedThinking, Data: "EmwKAhgB", Family: "anthropic"},
				{Type: llm.PartText, Text: "A cat. Listing files."},
				{Type: llm.PartToolCall, ID: "toolu_01", Name: "Bash", Arguments: `{"command":"ls"}`},
				{Type: llm.PartToolCall, ID: "toolu_02", Name: "Read", Arguments: ""},
			}},
			{Role: llm.RoleTool, Content: []llm.Part{
				{Type: llm.PartToolResult, ID: "toolu_01", Result: []llm.Part{{Type: llm.PartText, Text: "a.go"}, {Type: llm.PartText, Text: "b.go"}}},
				{Type: llm.PartToolResult, ID: "toolu_02", IsError: true, Result: []llm.Part{{Type: llm.PartText, Text: "no such file"}, {Type: llm.PartImage, MediaType: "image/png", Data: "iVBO"}}},
			}},
			{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: "Go on."}}},
			{Role: llm.RoleAssistant, Content: []llm.Part{{Type: llm.PartThinking, Text: "only foreign thinking", Family: "openai"}}},
		},
		Tools:       []llm.Tool{{Name: "Bash", Description: "Run a command", Parameters: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"command":{"type":"string"}},"required":["command"],"additionalProperties":false}`)}, {Name: "Read"}},
		ToolChoice:  &llm.ToolChoice{Mode: llm.ToolChoiceRequired},
		MaxTokens:   32000,
		Temperature: ptr(1.0),
		Stop:        []string{"\n\nHuman:"},
		Thinking:    &llm.Thinking{Enabled: true, BudgetTokens: 31999},
		Stream:      true,
		User:        "user-42",
	}
}

// TestEncodeRequestFromAnthropic pins how a foreign request is rendered.
func TestEncodeRequestFromAnthropic(t *testing.T) {
	req := anthropicStyle()
	body, err := New().EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/encode/anthropic_style.golden", golden.Indent(t, body))

	var got struct {
		Contents []struct {
			Role  string
			Parts []map[string]json.RawMessage
		}
		GenerationConfig struct {
			ThinkingConfig map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	var shape []string
	for _, c := range got.Contents {
		s := c.Role + ":"
		for _, p := range c.Parts {
			for _, k := range []string{"text", "inlineData", "fileData", "functionCall", "functionResponse"} {
				if _, ok := p[k]; ok {
					s += " " + k
				}
			}
			if sig, ok := p["thoughtSignature"]; ok {
				s += "(" + string(sig) + ")"
			}
		}
		shape = append(shape, s)
	}
	want := []string{
		"user: text inlineData fileData inlineData",
		`model: text functionCall("skip_thought_signature_validator") functionCall`,
		"user: functionResponse functionResponse inlineData text",
	}
	if !reflect.DeepEqual(shape, want) {
		t.Errorf("contents = %q\nwant %q", shape, want)
	}
	responses := got.Contents[2].Parts
	if string(responses[0]["functionResponse"]) != `{"name":"Bash","response":{"output":"a.go\nb.go"}}` ||
		string(responses[1]["functionResponse"]) != `{"name":"Read","response":{"error":"no such file"}}` {
		t.Errorf("function responses = %s, %s", responses[0]["functionResponse"], responses[1]["functionResponse"])
	}
	if string(got.GenerationConfig.ThinkingConfig["thinkingLevel"]) != "" || string(got.GenerationConfig.ThinkingConfig["thinkingBudget"]) != "24576" {
		t.Errorf("thinking config = %v, want the budget clamped to 24576", got.GenerationConfig.ThinkingConfig)
	}

	req.Thinking = &llm.Thinking{Enabled: true, Effort: "low"}
	body, _ = New().EncodeRequest(req)
	if !bytes.Contains(body, []byte(`"thinkingConfig":{"includeThoughts":true,"thinkingLevel":"low"}`)) {
		t.Errorf("Gemini 3 with an effort should get a thinking level: %s", body)
	}
}

// TestEncodeRequestErrors checks histories Gemini cannot carry.
func TestEncodeRequestErrors(t *testing.T) {
	tests := []llm.Request{
		{Messages: []llm.Message{{Role: llm.RoleAssistant, Content: []llm.Part{{Type: llm.PartToolCall, Name: "f", Arguments: "[1]"}}}}},
		{Messages: []llm.Message{{Role: llm.RoleAssistant, Content: []llm.Part{{Type: llm.PartToolCall, Name: "f", Arguments: "{broken"}}}}},
		{Messages: []llm.Message{{Role: llm.RoleTool, Content: []llm.Part{{Type: llm.PartToolResult}}}}},
	}
	for i, req := range tests {
		if _, err := New().EncodeRequest(&req); !errors.Is(err, llm.ErrMalformed) {
			t.Errorf("case %d: err = %v, want ErrMalformed", i, err)
		}
	}
}

// TestRequestRoundTrip encodes canonical requests Gemini can carry exactly
// and checks decoding gives them back.
func TestRequestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		req  llm.Request
	}{
		{"tools, calls and results", llm.Request{
			System: []llm.Part{{Type: llm.PartText, Text: "sys"}},
			Messages: []llm.Message{
				{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: "weather?"}, {Type: llm.PartImage, MediaType: "image/png", Data: "AAAA"}}},
				{Role: llm.RoleAssistant, Content: []llm.Part{
					{Type: llm.PartThinking, Text: "think", Signature: "s1", Family: "google"},
					{Type: llm.PartText, Text: "Checking."},
					{Type: llm.PartToolCall, ID: "call_1", Name: "weather", Arguments: `{"city":"Paris"}`, Signature: "s2", Family: "google"},
					{Type: llm.PartToolCall, ID: "call_2", Name: "weather", Arguments: `{"city":"Rome"}`},
				}},
				{Role: llm.RoleTool, Content: []llm.Part{
					{Type: llm.PartToolResult, ID: "call_1", Name: "weather", Result: []llm.Part{{Type: llm.PartText, Text: "sunny"}}},
					{Type: llm.PartToolResult, ID: "call_2", Name: "weather", IsError: true, Result: []llm.Part{{Type: llm.PartText, Text: "down"}}},
				}},
				{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: "thanks"}, {Type: llm.PartDocument, MediaType: "application/pdf", URL: "https://x/y.pdf"}}},
			},
			Tools:          []llm.Tool{{Name: "weather", Description: "d", Parameters: json.RawMessage(`{"type":"object"}`)}},
			ToolChoice:     &llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "weather"},
			MaxTokens:      100,
			Temperature:    ptr(0.1),
			TopP:           ptr(0.5),
			TopK:           ptr(5),
			Stop:           []string{"x"},
			Seed:           ptr(int64(3)),
			ResponseFormat: &llm.ResponseFormat{Type: "json_schema", Schema: json.RawMessage(`{"type":"object"}`)},
			Thinking:       &llm.Thinking{Enabled: true, BudgetTokens: 2048},
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
