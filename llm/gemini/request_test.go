package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/internal/golden"
	"github.com/heddle-gw/heddle/llm"
)

// TestRequestGolden decodes every request fixture and encodes it again; the
// encoded body must decode again.
func TestRequestGolden(t *testing.T) {
	c := New()
	for _, path := range golden.Glob(t, filepath.Join("testdata", "requests", "*.json")) {
		t.Run(path, func(t *testing.T) {
			req, err := c.DecodeRequest(golden.Read(t, path))
			if err != nil {
				t.Fatalf("DecodeRequest: %v", err)
			}
			golden.Check(t, golden.Beside(path, ".canonical.golden"), canonical(t, req))
			req.Model = "gemini-2.5-pro"
			body, err := c.EncodeRequest(req)
			if err != nil {
				t.Fatalf("EncodeRequest: %v", err)
			}
			golden.Check(t, golden.Beside(path, ".encoded.golden"), golden.Indent(t, body))
			if _, err := c.DecodeRequest(body); err != nil {
				t.Fatalf("encoded request does not decode: %v", err)
			}
		})
	}
}

// TestDecodeRequestFields pins the tool-turn fixture field by field.
func TestDecodeRequestFields(t *testing.T) {
	req, err := New().DecodeRequest(golden.Read(t, "testdata/requests/tool_turn.json"))
	if err != nil {
		t.Fatal(err)
	}
	if req.Model != "" || req.Stream {
		t.Errorf("model %q stream %v: both come from the URL", req.Model, req.Stream)
	}
	if len(req.System) != 2 || req.System[1].Text != "Use tools when needed." {
		t.Errorf("system = %+v", req.System)
	}
	want := []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Part{
			{Type: llm.PartText, Text: "What's the weather in Paris? Here is a photo."},
			{Type: llm.PartImage, MediaType: "image/png", Data: "iVBORw0KGgo="},
		}},
		{Role: llm.RoleAssistant, Content: []llm.Part{
			{Type: llm.PartThinking, Text: "**Checking weather**", Signature: "CiQBVKhc7sig1", Family: "google"},
			{Type: llm.PartToolCall, ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris","unit":"celsius"}`, Signature: "CiQBVKhc7sig2", Family: "google"},
		}},
		{Role: llm.RoleTool, Content: []llm.Part{
			{Type: llm.PartToolResult, ID: "call_1", Name: "get_weather", Result: []llm.Part{{Type: llm.PartText, Text: "18C, sunny"}}},
		}},
		{Role: llm.RoleAssistant, Content: []llm.Part{
			{Type: llm.PartText, Text: "It is 18C and sunny in Paris."},
			{Type: llm.PartText, Signature: "CiQBVKhc7sig3", Family: "google"},
		}},
		{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: "Thanks. And in Rome?"}}},
	}
	if !reflect.DeepEqual(req.Messages, want) {
		t.Errorf("messages:\n%s\nwant:\n%s", canonical(t, req.Messages), canonical(t, want))
	}
	if len(req.Tools) != 2 || req.Tools[0].Name != "get_weather" || req.Tools[1].Name != "search_docs" {
		t.Fatalf("tools = %+v", req.Tools)
	}
	var schema struct {
		Type       string
		Properties map[string]struct {
			Type string
			Enum []string
		}
	}
	if err := json.Unmarshal(req.Tools[0].Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" || schema.Properties["city"].Type != "string" || schema.Properties["type"].Type != "string" ||
		!reflect.DeepEqual(schema.Properties["unit"].Enum, []string{"celsius", "FAHRENHEIT"}) {
		t.Errorf("OpenAPI schema not normalized: %s", req.Tools[0].Parameters)
	}
	if !strings.Contains(string(req.Tools[1].Parameters), `"additionalProperties":false`) {
		t.Errorf("parametersJsonSchema not kept: %s", req.Tools[1].Parameters)
	}
	if req.ToolChoice == nil || *req.ToolChoice != (llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "get_weather"}) {
		t.Errorf("tool choice = %+v", req.ToolChoice)
	}
	if *req.Temperature != 0.7 || *req.TopP != 0.95 || *req.TopK != 40 || req.MaxTokens != 2048 || !reflect.DeepEqual(req.Stop, []string{"END"}) || *req.Seed != 7 {
		t.Errorf("sampling = %v %v %v %d %v %v", *req.Temperature, *req.TopP, *req.TopK, req.MaxTokens, req.Stop, *req.Seed)
	}
	if req.Thinking == nil || *req.Thinking != (llm.Thinking{Enabled: true, BudgetTokens: 1024}) {
		t.Errorf("thinking = %+v", req.Thinking)
	}
}

// TestDecodeRequestSnakeCase reads the snake_case spelling of the REST API.
func TestDecodeRequestSnakeCase(t *testing.T) {
	req, err := New().DecodeRequest(golden.Read(t, "testdata/requests/snake_case.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Part{
		{Type: llm.PartText, Text: "Describe this file"},
		{Type: llm.PartDocument, MediaType: "application/pdf", Data: "JVBERi0x"},
		{Type: llm.PartImage, MediaType: "image/jpeg", URL: "https://generativelanguage.googleapis.com/v1beta/files/abc"},
	}
	if len(req.System) != 1 || !reflect.DeepEqual(req.Messages[0].Content, want) {
		t.Errorf("system %+v content %+v", req.System, req.Messages[0].Content)
	}
	if req.MaxTokens != 300 || *req.TopP != 0.5 || *req.TopK != 3 || req.Stop[0] != "x" {
		t.Errorf("generation config = %d %v %v %v", req.MaxTokens, req.TopP, req.TopK, req.Stop)
	}
	if req.ResponseFormat == nil || req.ResponseFormat.Type != "json_schema" || string(req.ResponseFormat.Schema) != `{"properties":{"title":{"type":"string"}},"type":"object"}` {
		t.Errorf("response format = %+v", req.ResponseFormat)
	}
	if req.ToolChoice == nil || req.ToolChoice.Mode != llm.ToolChoiceNone || req.Thinking == nil || req.Thinking.Enabled {
		t.Errorf("tool choice %+v thinking %+v", req.ToolChoice, req.Thinking)
	}
}

// TestDecodeRequestCallIDs checks id synthesis and name+order matching.
func TestDecodeRequestCallIDs(t *testing.T) {
	req, err := New().DecodeRequest(golden.Read(t, "testdata/requests/parallel_calls.json"))
	if err != nil {
		t.Fatal(err)
	}
	var calls, results []string
	for _, m := range req.Messages {
		for _, p := range m.Content {
			switch p.Type {
			case llm.PartToolCall:
				calls = append(calls, p.ID+" "+p.Name+" "+p.Arguments)
			case llm.PartToolResult:
				results = append(results, fmt.Sprintf("%s %s %v %s", p.ID, p.Name, p.IsError, p.Result[0].Text))
			}
		}
	}
	wantCalls := []string{`call_1 get_weather {"city":"Paris"}`, `call_2 get_weather {"city":"Rome"}`, `call_3 get_time {"tz":"Asia/Tokyo"}`, `explicit-1 get_time {}`}
	wantResults := []string{`call_3 get_time false {"time":"09:00"}`, `call_1 get_weather false Paris: 18C`, `explicit-1 get_time true no timezone`, `call_2 get_weather false Rome: 24C`}
	if !reflect.DeepEqual(calls, wantCalls) || !reflect.DeepEqual(results, wantResults) {
		t.Errorf("calls %q\nresults %q", calls, results)
	}
	last := req.Messages[len(req.Messages)-1]
	if last.Role != llm.RoleUser || last.Content[0].Text != "Summarize." || req.Messages[len(req.Messages)-2].Role != llm.RoleTool {
		t.Errorf("the user text after the results should be its own user message: %+v", req.Messages)
	}
}

// TestDecodeRequestErrors checks bad input names the field.
func TestDecodeRequestErrors(t *testing.T) {
	tests := []struct{ name, body, field string }{
		{"not json", `{"contents":`, ""},
		{"not an object", `"hi"`, ""},
		{"no contents", `{}`, "contents"},
		{"contents not array", `{"contents":{}}`, "contents"},
		{"bad role", `{"contents":[{"role":"bot","parts":[{"text":"x"}]}]}`, "contents[0].role"},
		{"part not object", `{"contents":[{"parts":["x"]}]}`, "contents[0].parts[0]"},
		{"text not string", `{"contents":[{"parts":[{"text":1}]}]}`, "contents[0].parts[0].text"},
		{"call without name", `{"contents":[{"role":"model","parts":[{"functionCall":{"args":{}}}]}]}`, "contents[0].parts[0].functionCall.name"},
		{"args not object", `{"contents":[{"role":"model","parts":[{"functionCall":{"name":"f","args":[1]}}]}]}`, "contents[0].parts[0].functionCall.args"},
		{"response without name", `{"contents":[{"parts":[{"functionResponse":{"response":{}}}]}]}`, "contents[0].parts[0].functionResponse.name"},
		{"response not object", `{"contents":[{"parts":[{"functionResponse":{"name":"f","response":"x"}}]}]}`, "contents[0].parts[0].functionResponse.response"},
		{"inline data without type", `{"contents":[{"parts":[{"inlineData":{"data":"AA"}}]}]}`, "contents[0].parts[0].inlineData"},
		{"file without uri", `{"contents":[{"parts":[{"fileData":{"mimeType":"image/png"}}]}]}`, "contents[0].parts[0].fileData.fileUri"},
		{"decl without name", `{"contents":[{"parts":[{"text":"x"}]}],"tools":[{"functionDeclarations":[{}]}]}`, "tools[0].functionDeclarations[0].name"},
		{"parameters not object", `{"contents":[{"parts":[{"text":"x"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":1}]}]}`, "tools[0].functionDeclarations[0].parameters"},
		{"max tokens negative", `{"contents":[{"parts":[{"text":"x"}]}],"generationConfig":{"maxOutputTokens":-5}}`, "generationConfig.maxOutputTokens"},
		{"temperature string", `{"contents":[{"parts":[{"text":"x"}]}],"generationConfig":{"temperature":"hot"}}`, "generationConfig.temperature"},
		{"system wrong", `{"contents":[{"parts":[{"text":"x"}]}],"systemInstruction":{"parts":[{"text":5}]}}`, "systemInstruction.parts[0].text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New().DecodeRequest([]byte(tt.body))
			var bad *llm.BadRequestError
			if !errors.As(err, &bad) || bad.Field != tt.field || bad.Reason == "" {
				t.Fatalf("err = %v, want a BadRequestError on %q", err, tt.field)
			}
		})
	}
}
