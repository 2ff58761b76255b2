package responses

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/internal/golden"
	"github.com/heddle-gw/heddle/llm"
)

// TestRequestGolden decodes every request fixture, encodes the result again,
// and checks both against golden files; the encoded body must decode again.
func TestRequestGolden(t *testing.T) {
	c := New()
	for _, path := range golden.Glob(t, filepath.Join("testdata", "requests", "*.json")) {
		t.Run(path, func(t *testing.T) {
			req, err := c.DecodeRequest(golden.Read(t, path))
			if err != nil {
				t.Fatalf("DecodeRequest: %v", err)
			}
			golden.Check(t, golden.Beside(path, ".canonical.golden"), canonical(t, req))
			body, err := c.EncodeRequest(req)
			if err != nil {
				t.Fatalf("EncodeRequest: %v", err)
			}
			golden.Check(t, golden.Beside(path, ".encoded.golden"), pretty(t, body))
			if _, err := c.DecodeRequest(body); err != nil {
				t.Fatalf("encoded request does not decode: %v", err)
			}
		})
	}
}

// TestDecodeRequestFields pins the mapping of the Codex fixture field by field.
func TestDecodeRequestFields(t *testing.T) {
	req, err := New().DecodeRequest(golden.Read(t, "testdata/requests/codex_tool_turn.json"))
	if err != nil {
		t.Fatal(err)
	}
	if req.Model != "gpt-5-codex" || !req.Stream || !req.StreamUsage {
		t.Errorf("model/stream = %q %v %v", req.Model, req.Stream, req.StreamUsage)
	}
	if len(req.System) != 2 || req.System[0].Text != "You are Codex, a coding agent." || !strings.Contains(req.System[1].Text, "sandbox") {
		t.Errorf("System = %+v, want instructions then the developer message", req.System)
	}
	roles := []llm.Role{}
	for _, m := range req.Messages {
		roles = append(roles, m.Role)
	}
	wantRoles := []llm.Role{llm.RoleUser, llm.RoleUser, llm.RoleAssistant, llm.RoleTool, llm.RoleAssistant, llm.RoleUser}
	if !reflect.DeepEqual(roles, wantRoles) {
		t.Fatalf("roles = %v, want %v", roles, wantRoles)
	}
	turn := req.Messages[2].Content
	want := []llm.Part{
		{Type: llm.PartThinking, Text: "**Listing files**\n\nI should run ls.", ID: "rs_01", Family: "openai"},
		{Type: llm.PartRedactedThinking, Data: "gAAAAABo-encrypted-1", ID: "rs_01", Family: "openai"},
		{Type: llm.PartToolCall, ID: "call_abc", Name: "shell", Arguments: `{"command":["ls","-1"]}`},
	}
	if !reflect.DeepEqual(turn, want) {
		t.Errorf("assistant turn = %+v\nwant %+v", turn, want)
	}
	result := req.Messages[3].Content[0]
	if result.Type != llm.PartToolResult || result.ID != "call_abc" || len(result.Result) != 1 || result.Result[0].Text != "a.txt\nb.txt\n" {
		t.Errorf("tool result = %+v", result)
	}
	if len(req.Tools) != 1 || req.Tools[0].Name != "shell" || req.Tools[0].Strict || !strings.Contains(string(req.Tools[0].Parameters), `"command"`) {
		t.Errorf("tools = %+v, want only the function tool", req.Tools)
	}
	if req.ToolChoice == nil || req.ToolChoice.Mode != llm.ToolChoiceAuto {
		t.Errorf("tool choice = %+v", req.ToolChoice)
	}
	if req.ParallelToolCalls == nil || *req.ParallelToolCalls {
		t.Errorf("parallel_tool_calls = %v", req.ParallelToolCalls)
	}
	if req.Thinking == nil || !req.Thinking.Enabled || req.Thinking.Effort != "medium" {
		t.Errorf("thinking = %+v", req.Thinking)
	}
}

// TestDecodeRequestOptions covers the sampling, format and choice members.
func TestDecodeRequestOptions(t *testing.T) {
	req, err := New().DecodeRequest(golden.Read(t, "testdata/requests/string_input_json_schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(req.Messages) != 1 || req.Messages[0].Role != llm.RoleUser || req.Messages[0].Content[0].Text != "Give me a user record." {
		t.Errorf("messages = %+v", req.Messages)
	}
	rf := req.ResponseFormat
	if rf == nil || rf.Type != "json_schema" || rf.Name != "user" || !rf.Strict || !json.Valid(rf.Schema) {
		t.Errorf("response format = %+v", rf)
	}
	if *req.Temperature != 0.2 || *req.TopP != 0.9 || req.MaxTokens != 256 || req.User != "end-user-7" || req.Metadata["team"] != "infra" {
		t.Errorf("options = %v %v %d %q %v", *req.Temperature, *req.TopP, req.MaxTokens, req.User, req.Metadata)
	}
	if req.ToolChoice == nil || req.ToolChoice.Mode != llm.ToolChoiceTool || req.ToolChoice.Name != "lookup" {
		t.Errorf("tool choice = %+v", req.ToolChoice)
	}
	if req.Stream || req.Thinking != nil {
		t.Errorf("stream %v thinking %+v, want unset", req.Stream, req.Thinking)
	}
}

// TestDecodeRequestContent covers images, files and multi-turn history.
func TestDecodeRequestContent(t *testing.T) {
	req, err := New().DecodeRequest(golden.Read(t, "testdata/requests/image_file.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Part{
		{Type: llm.PartText, Text: "What is in these?"},
		{Type: llm.PartImage, MediaType: "image/png", Data: "iVBORw0KGgo="},
		{Type: llm.PartImage, URL: "https://example.com/cat.jpg"},
		{Type: llm.PartImage, ID: "file-img1"},
		{Type: llm.PartDocument, Name: "spec.pdf", MediaType: "application/pdf", Data: "JVBERi0x"},
		{Type: llm.PartDocument, URL: "https://example.com/doc.pdf"},
	}
	if !reflect.DeepEqual(req.Messages[0].Content, want) {
		t.Errorf("content = %+v\nwant %+v", req.Messages[0].Content, want)
	}

	multi, err := New().DecodeRequest(golden.Read(t, "testdata/requests/multi_turn.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(multi.System) != 2 || multi.System[1].Text != "Answer in English." {
		t.Errorf("system = %+v", multi.System)
	}
	if got := len(multi.Messages); got != 6 {
		t.Fatalf("%d messages, want 6: %+v", got, multi.Messages)
	}
	calls := multi.Messages[3].Content
	if len(calls) != 3 || calls[0].Text != "4" || calls[1].Arguments != `{"expr":"2+2"}` || calls[2].Arguments != "{}" {
		t.Errorf("assistant turn = %+v", calls)
	}
	tool := multi.Messages[4]
	if tool.Role != llm.RoleTool || len(tool.Content) != 2 || len(tool.Content[0].Result) != 2 || tool.Content[0].Result[1].URL != "https://example.com/plot.png" {
		t.Errorf("tool turn = %+v", tool)
	}
	if multi.Thinking == nil || multi.Thinking.Enabled || multi.Thinking.Effort != "none" {
		t.Errorf("thinking = %+v", multi.Thinking)
	}
	if multi.ResponseFormat == nil || multi.ResponseFormat.Type != "json_object" {
		t.Errorf("format = %+v", multi.ResponseFormat)
	}
}

// TestDecodeRequestErrors checks that bad input is a BadRequestError naming the field.
func TestDecodeRequestErrors(t *testing.T) {
	tests := []struct {
		name, body, field string
	}{
		{"not json", `{"model":`, ""},
		{"not an object", `[1,2]`, ""},
		{"missing model", `{"input":"hi"}`, "model"},
		{"model not a string", `{"model":5,"input":"hi"}`, "model"},
		{"missing input", `{"model":"m"}`, "input"},
		{"input a number", `{"model":"m","input":5}`, "input"},
		{"item not an object", `{"model":"m","input":["hi"]}`, "input[0]"},
		{"bad role", `{"model":"m","input":[{"role":"robot","content":"x"}]}`, "input[0].role"},
		{"content wrong type", `{"model":"m","input":[{"role":"user","content":7}]}`, "input[0].content"},
		{"part text wrong type", `{"model":"m","input":[{"role":"user","content":[{"type":"input_text","text":1}]}]}`, "input[0].content[0].text"},
		{"part without type", `{"model":"m","input":[{"role":"user","content":[{"text":"x"}]}]}`, "input[0].content[0].type"},
		{"bad data url", `{"model":"m","input":[{"role":"user","content":[{"type":"input_image","image_url":"data:image/png,xx"}]}]}`, "input[0].content[0].image_url"},
		{"call without id", `{"model":"m","input":[{"type":"function_call","name":"f","arguments":"{}"}]}`, "input[0].call_id"},
		{"call arguments object", `{"model":"m","input":[{"type":"function_call","call_id":"c","name":"f","arguments":{}}]}`, "input[0].arguments"},
		{"output without id", `{"model":"m","input":[{"type":"function_call_output","output":"x"}]}`, "input[1-1].call_id"},
		{"tool without name", `{"model":"m","input":"x","tools":[{"type":"function"}]}`, "tools[0].name"},
		{"tool parameters not object", `{"model":"m","input":"x","tools":[{"type":"function","name":"f","parameters":"x"}]}`, "tools[0].parameters"},
		{"tool choice unknown", `{"model":"m","input":"x","tool_choice":"sometimes"}`, "tool_choice"},
		{"tool choice no name", `{"model":"m","input":"x","tool_choice":{"type":"function"}}`, "tool_choice.name"},
		{"format unknown", `{"model":"m","input":"x","text":{"format":{"type":"yaml"}}}`, "text.format.type"},
		{"schema missing", `{"model":"m","input":"x","text":{"format":{"type":"json_schema","name":"x"}}}`, "text.format.schema"},
		{"negative max", `{"model":"m","input":"x","max_output_tokens":-1}`, "max_output_tokens"},
		{"temperature string", `{"model":"m","input":"x","temperature":"hot"}`, "temperature"},
		{"stream string", `{"model":"m","input":"x","stream":"yes"}`, "stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New().DecodeRequest([]byte(tt.body))
			var bad *llm.BadRequestError
			if !errors.As(err, &bad) {
				t.Fatalf("err = %v, want *llm.BadRequestError", err)
			}
			field := strings.ReplaceAll(tt.field, "[1-1]", "[0]")
			if bad.Field != field || bad.Reason == "" {
				t.Errorf("field = %q (%s), want %q", bad.Field, bad.Reason, field)
			}
			if !errors.Is(err, llm.ErrMalformed) {
				t.Error("error does not wrap llm.ErrMalformed")
			}
		})
	}
}
