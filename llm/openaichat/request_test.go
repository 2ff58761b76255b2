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

func TestRequestGoldens(t *testing.T) {
	for _, f := range golden.Glob(t, "testdata/requests/*.json") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			c := testCodec()
			body, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			req, err := c.DecodeRequest(body)
			if err != nil {
				t.Fatalf("DecodeRequest: %v", err)
			}
			golden.Check(t, golden.Beside(f, ".canonical.golden"), dump(t, req))
			enc, err := c.EncodeRequest(req)
			if err != nil {
				t.Fatalf("EncodeRequest: %v", err)
			}
			golden.Check(t, golden.Beside(f, ".encoded.golden"), golden.Indent(t, enc))
			again, err := c.DecodeRequest(enc)
			if err != nil {
				t.Fatalf("DecodeRequest(encoded): %v", err)
			}
			// A stream sent upstream always asks for usage, and cache marks
			// have no place in the format; all else survives.
			want := normalizeRequest(req)
			want.StreamUsage = want.Stream
			for i := range want.System {
				want.System[i].CacheControl = ""
			}
			if a, b := dump(t, want), dump(t, normalizeRequest(again)); !bytes.Equal(a, b) {
				t.Errorf("round trip changed the request:\n--- first\n%s\n--- second\n%s", a, b)
			}
		})
	}
}

func TestDecodeRequestMapping(t *testing.T) {
	body, err := os.ReadFile("testdata/requests/tool_loop.json")
	if err != nil {
		t.Fatal(err)
	}
	r, err := New().DecodeRequest(body)
	if err != nil {
		t.Fatal(err)
	}
	if r.Model != "gpt-4.1" || r.MaxTokens != 1000 || !r.Stream || !r.StreamUsage || r.User != "user-42" ||
		*r.Temperature != 0.5 || *r.Seed != 7 || r.Metadata["team"] != "core" {
		t.Errorf("scalars = %+v", r)
	}
	if len(r.System) != 2 || r.System[0].Text != "You are a coding agent." || r.System[1].Text != "Use tools when needed." {
		t.Errorf("system = %+v", r.System)
	}
	if len(r.Stop) != 1 || r.Stop[0] != "END" {
		t.Errorf("stop = %v", r.Stop)
	}
	if r.Thinking == nil || !r.Thinking.Enabled || r.Thinking.Effort != "low" {
		t.Errorf("thinking = %+v", r.Thinking)
	}
	if r.ParallelToolCalls == nil || !*r.ParallelToolCalls || r.ToolChoice.Mode != llm.ToolChoiceAuto {
		t.Errorf("tool choice = %+v parallel %v", r.ToolChoice, r.ParallelToolCalls)
	}
	if len(r.Tools) != 1 || !r.Tools[0].Strict || r.Tools[0].Name != "get_weather" {
		t.Errorf("tools = %+v", r.Tools)
	}
	wantRoles := []llm.Role{llm.RoleUser, llm.RoleAssistant, llm.RoleTool, llm.RoleTool, llm.RoleAssistant, llm.RoleUser}
	if len(r.Messages) != len(wantRoles) {
		t.Fatalf("messages = %+v", r.Messages)
	}
	for i, m := range r.Messages {
		if m.Role != wantRoles[i] {
			t.Errorf("messages[%d].Role = %s, want %s", i, m.Role, wantRoles[i])
		}
	}
	if r.Messages[0].Name != "alice" {
		t.Errorf("name = %q", r.Messages[0].Name)
	}
	calls := r.Messages[1].Content
	if len(calls) != 2 || calls[0].ID != "call_abc123" || calls[0].Arguments != `{"city":"Paris"}` || calls[1].ID != "call_def456" {
		t.Errorf("tool calls = %+v", calls)
	}
	res := r.Messages[3].Content[0]
	if res.Type != llm.PartToolResult || res.ID != "call_def456" || res.Result[0].Text != "24°C sunny" {
		t.Errorf("tool result = %+v", res)
	}
}

func TestDecodeRequestErrors(t *testing.T) {
	tests := []struct {
		name, body, field string
	}{
		{"malformed JSON", `{"model"`, ""},
		{"missing model", `{"messages":[]}`, "model"},
		{"missing messages", `{"model":"m"}`, "messages"},
		{"messages not an array", `{"model":"m","messages":"hi"}`, "messages"},
		{"unknown role", `{"model":"m","messages":[{"role":"robot","content":"x"}]}`, "messages[0].role"},
		{"function role", `{"model":"m","messages":[{"role":"function","name":"f","content":"x"}]}`, "messages[0].role"},
		{"content wrong type", `{"model":"m","messages":[{"role":"user","content":42}]}`, "messages[0].content"},
		{"user content missing", `{"model":"m","messages":[{"role":"user"}]}`, "messages[0].content"},
		{"part type missing", `{"model":"m","messages":[{"role":"user","content":[{"text":"x"}]}]}`, "messages[0].content[0].type"},
		{"audio part", `{"model":"m","messages":[{"role":"user","content":[{"type":"input_audio","input_audio":{}}]}]}`, "messages[0].content[0].type"},
		{"image in system", `{"model":"m","messages":[{"role":"system","content":[{"type":"image_url","image_url":{"url":"x"}}]}]}`, "messages[0].content[0].type"},
		{"image without url", `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{}}]}]}`, "messages[0].content[0].image_url.url"},
		{"file id", `{"model":"m","messages":[{"role":"user","content":[{"type":"file","file":{"file_id":"file-1"}}]}]}`, "messages[0].content[0].file.file_id"},
		{"tool without call id", `{"model":"m","messages":[{"role":"tool","content":"x"}]}`, "messages[0].tool_call_id"},
		{"tool call without id", `{"model":"m","messages":[{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"f"}}]}]}`, "messages[0].tool_calls[0].id"},
		{"tool call arguments not a string", `{"model":"m","messages":[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":{}}}]}]}`, "messages[0].tool_calls[0].function.arguments"},
		{"tools wrong type", `{"model":"m","messages":[],"tools":{}}`, "tools"},
		{"tool type", `{"model":"m","messages":[],"tools":[{"type":"custom","custom":{}}]}`, "tools[0].type"},
		{"tool name", `{"model":"m","messages":[],"tools":[{"type":"function","function":{}}]}`, "tools[0].function.name"},
		{"tool choice string", `{"model":"m","messages":[],"tool_choice":"always"}`, "tool_choice"},
		{"tool choice object", `{"model":"m","messages":[],"tool_choice":{"type":"allowed_tools"}}`, "tool_choice.type"},
		{"stop wrong type", `{"model":"m","messages":[],"stop":5}`, "stop"},
		{"n above one", `{"model":"m","messages":[],"n":2}`, "n"},
		{"max tokens wrong type", `{"model":"m","messages":[],"max_completion_tokens":"10"}`, "max_completion_tokens"},
		{"negative max tokens", `{"model":"m","messages":[],"max_tokens":-1}`, "max_completion_tokens"},
		{"response format", `{"model":"m","messages":[],"response_format":{"type":"yaml"}}`, "response_format.type"},
		{"json schema missing", `{"model":"m","messages":[],"response_format":{"type":"json_schema"}}`, "response_format.json_schema"},
		{"stream wrong type", `{"model":"m","messages":[],"stream":"yes"}`, "stream"},
		{"stream options wrong type", `{"model":"m","messages":[],"stream_options":{"include_usage":1}}`, "stream_options.include_usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New().DecodeRequest([]byte(tt.body))
			var bad *llm.BadRequestError
			if !errors.As(err, &bad) {
				t.Fatalf("err = %v, want *llm.BadRequestError", err)
			}
			if bad.Field != tt.field || bad.Reason == "" {
				t.Errorf("field = %q (reason %q), want %q", bad.Field, bad.Reason, tt.field)
			}
		})
	}
}

func TestEncodeRequestRules(t *testing.T) {
	no := false
	tests := []struct {
		name  string
		codec *Codec
		req   llm.Request
		want  string
	}{
		{
			name:  "tool results become tool messages first, their images follow, thinking dropped",
			codec: testCodec(),
			req: llm.Request{Model: "m", Messages: []llm.Message{
				{Role: llm.RoleAssistant, Content: []llm.Part{
					{Type: llm.PartThinking, Text: "hmm", Signature: "s", Family: "anthropic"},
					{Type: llm.PartText, Text: "Looking."},
					{Type: llm.PartToolCall, Name: "shot", Arguments: ""},
				}},
				{Role: llm.RoleUser, Content: []llm.Part{
					{Type: llm.PartToolResult, ID: "toolu_1", IsError: true, Result: []llm.Part{
						{Type: llm.PartText, Text: "line 1"}, {Type: llm.PartText, Text: "line 2"},
						{Type: llm.PartImage, MediaType: "image/png", Data: "AAAA"},
					}},
					{Type: llm.PartText, Text: "what now?"},
				}},
			}},
			want: `{"model":"m","messages":[{"role":"assistant","content":"Looking.","tool_calls":[{"id":"call_gen1","type":"function","function":{"name":"shot","arguments":"{}"}}]},` +
				`{"role":"tool","content":"line 1\nline 2","tool_call_id":"toolu_1"},` +
				`{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}},{"type":"text","text":"what now?"}]}]}`,
		},
		{
			name:  "legacy max_tokens, effort from budget, tool settings only with tools",
			codec: &Codec{LegacyMaxTokens: true},
			req: llm.Request{Model: "m", MaxTokens: 64, Thinking: &llm.Thinking{Enabled: true, BudgetTokens: 20000},
				ToolChoice: &llm.ToolChoice{Mode: llm.ToolChoiceRequired}, ParallelToolCalls: &no, Stream: true,
				ResponseFormat: &llm.ResponseFormat{Type: "json_schema", Schema: []byte(`{"type":"object"}`)},
				Messages:       []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: "hi"}}}}},
			want: `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":64,` +
				`"response_format":{"type":"json_schema","json_schema":{"name":"response","schema":{"type":"object"}}},` +
				`"reasoning_effort":"high","stream":true,"stream_options":{"include_usage":true}}`,
		},
		{
			name:  "documents, system messages in place, pending images flushed at the end",
			codec: testCodec(),
			req: llm.Request{Model: "m", Tools: []llm.Tool{{Name: "t", Parameters: []byte(`{"type":"object"}`)}},
				ToolChoice: &llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "t"}, ParallelToolCalls: &no,
				Messages: []llm.Message{
					{Role: llm.RoleUser, Content: []llm.Part{
						{Type: llm.PartDocument, Name: "a.pdf", MediaType: "application/pdf", Data: "JVBE"},
						{Type: llm.PartDocument, URL: "https://x/doc.pdf"},
					}},
					{Role: llm.RoleDeveloper, Content: []llm.Part{{Type: llm.PartText, Text: "be brief"}}},
					{Role: llm.RoleTool, Content: []llm.Part{{Type: llm.PartToolResult, ID: "c1", Result: []llm.Part{
						{Type: llm.PartImage, URL: "https://x/y.png"},
					}}}},
				}},
			want: `{"model":"m","messages":[{"role":"user","content":[{"type":"file","file":{"filename":"a.pdf","file_data":"data:application/pdf;base64,JVBE"}},{"type":"text","text":"https://x/doc.pdf"}]},` +
				`{"role":"developer","content":"be brief"},{"role":"tool","content":"","tool_call_id":"c1"},` +
				`{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://x/y.png"}}]}],` +
				`"tools":[{"type":"function","function":{"name":"t","parameters":{"type":"object"}}}],` +
				`"tool_choice":{"type":"function","function":{"name":"t"}},"parallel_tool_calls":false}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.codec.EncodeRequest(&tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("EncodeRequest =\n%s\nwant\n%s", got, tt.want)
			}
			if _, err := New().DecodeRequest(got); err != nil {
				t.Errorf("the encoding does not decode: %v", err)
			}
		})
	}
}

func TestReasoningEffort(t *testing.T) {
	tests := []struct {
		in   *llm.Thinking
		want string
	}{
		{nil, ""},
		{&llm.Thinking{}, ""},
		{&llm.Thinking{Effort: "none"}, "none"},
		{&llm.Thinking{Enabled: true}, "medium"},
		{&llm.Thinking{Enabled: true, BudgetTokens: 1024}, "low"},
		{&llm.Thinking{Enabled: true, BudgetTokens: 8000}, "medium"},
		{&llm.Thinking{Enabled: true, BudgetTokens: 32000}, "high"},
		{&llm.Thinking{Enabled: true, BudgetTokens: 32000, Effort: "minimal"}, "minimal"},
	}
	for _, tt := range tests {
		if got := reasoningEffort(tt.in); got != tt.want {
			t.Errorf("reasoningEffort(%+v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
