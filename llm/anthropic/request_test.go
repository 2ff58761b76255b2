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

// TestRequestGoldens decodes each fixture, encodes it back, and checks both
// against golden files and that the encoding decodes to the same request.
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
			if a, b := dump(t, normalizeRequest(req)), dump(t, normalizeRequest(again)); !bytes.Equal(a, b) {
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
	if r.Model != "claude-sonnet-4-5" || r.MaxTokens != 8192 || !r.Stream || r.User != "user-42" {
		t.Errorf("scalars = %q %d %v %q", r.Model, r.MaxTokens, r.Stream, r.User)
	}
	if len(r.System) != 2 || r.System[0].CacheControl != "ephemeral" || r.System[1].CacheControl != "ephemeral;ttl=1h" {
		t.Errorf("system = %+v", r.System)
	}
	roles := []llm.Role{}
	for _, m := range r.Messages {
		roles = append(roles, m.Role)
	}
	if want := []llm.Role{llm.RoleUser, llm.RoleAssistant, llm.RoleTool, llm.RoleUser}; !equalRoles(roles, want) {
		t.Errorf("roles = %v, want %v", roles, want)
	}
	asst := r.Messages[1].Content
	if len(asst) != 3 || asst[0].Type != llm.PartThinking || asst[0].Family != "anthropic" || asst[0].Signature != "EqQBCgIYAhIM1gbcDa9GJwZA2b3h" {
		t.Errorf("assistant thinking = %+v", asst)
	}
	if call := asst[2]; call.Type != llm.PartToolCall || call.ID != "toolu_01A09q90qw90lq917835lq9" || call.Name != "get_weather" ||
		string(compact([]byte(call.Arguments))) != `{"city":"Paris","unit":"celsius"}` {
		t.Errorf("tool call = %+v", call)
	}
	res := r.Messages[2].Content[0]
	if res.Type != llm.PartToolResult || res.ID != "toolu_01A09q90qw90lq917835lq9" || len(res.Result) != 1 || res.Result[0].Text != "18°C, cloudy <b>&</b>" {
		t.Errorf("tool result = %+v", res)
	}
	if len(r.Tools) != 1 || r.Tools[0].Name != "get_weather" {
		t.Errorf("tools = %+v (the server tool must be left out)", r.Tools)
	}
	if r.ToolChoice == nil || r.ToolChoice.Mode != llm.ToolChoiceAuto || r.ParallelToolCalls == nil || *r.ParallelToolCalls {
		t.Errorf("tool choice = %+v, parallel = %v", r.ToolChoice, r.ParallelToolCalls)
	}
	if r.Thinking == nil || !r.Thinking.Enabled || r.Thinking.BudgetTokens != 4096 {
		t.Errorf("thinking = %+v", r.Thinking)
	}
	if len(r.Stop) != 1 || r.Stop[0] != "</answer>" {
		t.Errorf("stop = %v", r.Stop)
	}
}

func equalRoles(a, b []llm.Role) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDecodeRequestErrors(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		field string
	}{
		{"malformed JSON", `{"model":`, ""},
		{"not an object", `[1,2]`, ""},
		{"missing model", `{"max_tokens":1,"messages":[]}`, "model"},
		{"model not a string", `{"model":5,"max_tokens":1,"messages":[]}`, "model"},
		{"missing max_tokens", `{"model":"m","messages":[]}`, "max_tokens"},
		{"max_tokens not an integer", `{"model":"m","max_tokens":1.5,"messages":[]}`, "max_tokens"},
		{"zero max_tokens", `{"model":"m","max_tokens":0,"messages":[]}`, "max_tokens"},
		{"missing messages", `{"model":"m","max_tokens":1}`, "messages"},
		{"messages not an array", `{"model":"m","max_tokens":1,"messages":{}}`, "messages"},
		{"unknown role", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"a"},{"role":"developer","content":"b"}]}`, "messages[1].role"},
		{"system message not text", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"a"},{"role":"system","content":[{"type":"text","text":"b"},{"type":"tool_result","tool_use_id":"t","content":"x"}]}]}`, "messages[1].content[1].type"},
		{"missing role", `{"model":"m","max_tokens":1,"messages":[{"content":"a"}]}`, "messages[0].role"},
		{"missing content", `{"model":"m","max_tokens":1,"messages":[{"role":"user"}]}`, "messages[0].content"},
		{"content wrong type", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":7}]}`, "messages[0].content"},
		{"block type wrong type", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":3}]}]}`, "messages[0].content[1].type"},
		{"unknown block type", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"video"}]}]}`, "messages[0].content[0].type"},
		{"image without source", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"image"}]}]}`, "messages[0].content[0].source"},
		{"image bad source type", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"file","file_id":"f"}}]}]}`, "messages[0].content[0].source.type"},
		{"tool_use without id", `{"model":"m","max_tokens":1,"messages":[{"role":"assistant","content":[{"type":"tool_use","name":"x","input":{}}]}]}`, "messages[0].content[0].id"},
		{"tool_result without id", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"tool_result","content":"x"}]}]}`, "messages[0].content[0].tool_use_id"},
		{"nested tool_result block", `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":5}]}]}]}`, "messages[0].content[0].content[0].text"},
		{"system block not text", `{"model":"m","max_tokens":1,"system":[{"type":"image"}],"messages":[]}`, "system[0].type"},
		{"system wrong type", `{"model":"m","max_tokens":1,"system":3,"messages":[]}`, "system"},
		{"tool without name", `{"model":"m","max_tokens":1,"messages":[],"tools":[{"input_schema":{}}]}`, "tools[0].name"},
		{"tool_choice unknown", `{"model":"m","max_tokens":1,"messages":[],"tool_choice":{"type":"maybe"}}`, "tool_choice.type"},
		{"tool_choice tool without name", `{"model":"m","max_tokens":1,"messages":[],"tool_choice":{"type":"tool"}}`, "tool_choice.name"},
		{"thinking unknown", `{"model":"m","max_tokens":1,"messages":[],"thinking":{"type":"deep"}}`, "thinking.type"},
		{"metadata user_id wrong type", `{"model":"m","max_tokens":1,"messages":[],"metadata":{"user_id":1}}`, "metadata.user_id"},
		{"stop_sequences wrong type", `{"model":"m","max_tokens":1,"messages":[],"stop_sequences":"x"}`, "stop_sequences"},
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
			if !errors.Is(err, llm.ErrMalformed) {
				t.Error("error does not wrap llm.ErrMalformed")
			}
		})
	}
}

func TestDecodeCountRequest(t *testing.T) {
	r, err := New().DecodeCountRequest([]byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatalf("count request without max_tokens: %v", err)
	}
	if r.Model != "m" || len(r.Messages) != 1 || r.Messages[0].Content[0].Text != "hi" {
		t.Errorf("request = %+v", r)
	}
}

func TestEncodeRequestRules(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	k := 5
	yes, no := true, false
	toolTurn := []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: "go"}}},
		{Role: llm.RoleAssistant, Content: []llm.Part{
			{Type: llm.PartThinking, Text: "from gpt", Family: "openai", Signature: "sig"},
			{Type: llm.PartThinking, Text: "unsigned", Family: "anthropic"},
			{Type: llm.PartRedactedThinking, Data: "opaque", Family: "google"},
			{Type: llm.PartToolCall, Name: "ls", Arguments: "not json"},
		}},
		{Role: llm.RoleTool, Content: []llm.Part{{Type: llm.PartToolResult, ID: "call_1", Result: []llm.Part{{Type: llm.PartText, Text: "a.go"}}}}},
		{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: ""}, {Type: llm.PartText, Text: "next"}}},
	}
	tests := []struct {
		name string
		req  llm.Request
		want string
	}{
		{
			name: "defaults max_tokens and drops what the API lacks",
			req: llm.Request{Model: "m", Seed: new(int64), ResponseFormat: &llm.ResponseFormat{Type: "json_object"},
				Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: "hi"}}}}},
			want: `{"model":"m","max_tokens":4096,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`,
		},
		{
			name: "foreign and unsigned thinking dropped, turns merged, ids generated",
			req:  llm.Request{Model: "m", MaxTokens: 10, Messages: toolTurn},
			want: `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"text","text":"go"}]},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_gen1","name":"ls","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"a.go"},{"type":"text","text":"next"}]}]}`,
		},
		{
			name: "thinking off when the open tool loop has no leading thinking block",
			req:  llm.Request{Model: "m", MaxTokens: 10, Messages: toolTurn, Thinking: &llm.Thinking{Enabled: true, Effort: "high"}},
			want: `{"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"text","text":"go"}]},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_gen1","name":"ls","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"a.go"},{"type":"text","text":"next"}]}]}`,
		},
		{
			name: "effort becomes a budget, max_tokens grows, sampling limits apply",
			req: llm.Request{Model: "m", Temperature: f(0.3), TopP: f(0.5), TopK: &k, Thinking: &llm.Thinking{Enabled: true, Effort: "low"},
				Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: "hi"}}}}},
			want: `{"model":"m","max_tokens":6144,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"thinking":{"type":"enabled","budget_tokens":2048}}`,
		},
		{
			name: "budget clamped below a small max_tokens, or thinking left off",
			req: llm.Request{Model: "m", MaxTokens: 1500, Thinking: &llm.Thinking{Enabled: true, BudgetTokens: 4000},
				Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: "hi"}}}}},
			want: `{"model":"m","max_tokens":1500,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"thinking":{"type":"enabled","budget_tokens":1499}}`,
		},
		{
			name: "explicit thinking off",
			req: llm.Request{Model: "m", MaxTokens: 5, Thinking: &llm.Thinking{Effort: "none"},
				Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: "hi"}}}}},
			want: `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"thinking":{"type":"disabled"}}`,
		},
		{
			name: "system and developer messages join the system prompt; tool choice only with tools",
			req: llm.Request{Model: "m", MaxTokens: 5, System: []llm.Part{{Type: llm.PartText, Text: "sys"}},
				ToolChoice: &llm.ToolChoice{Mode: llm.ToolChoiceRequired}, ParallelToolCalls: &no,
				Messages: []llm.Message{
					{Role: llm.RoleDeveloper, Content: []llm.Part{{Type: llm.PartText, Text: "dev"}}},
					{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: "hi"}}},
				}},
			want: `{"model":"m","max_tokens":5,"system":[{"type":"text","text":"sys"},{"type":"text","text":"dev"}],"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`,
		},
		{
			name: "required tool choice with parallel calls, data URL image, tool without schema",
			req: llm.Request{Model: "m", MaxTokens: 5, ToolChoice: &llm.ToolChoice{Mode: llm.ToolChoiceRequired}, ParallelToolCalls: &yes,
				Tools: []llm.Tool{{Name: "t"}},
				Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{
					{Type: llm.PartImage, URL: "data:image/png;base64,AAAA"}, {Type: llm.PartImage, URL: "https://x/y.png"},
				}}}},
			want: `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}},{"type":"image","source":{"type":"url","url":"https://x/y.png"}}]}],"tools":[{"name":"t","input_schema":{"type":"object","properties":{}}}],"tool_choice":{"type":"any","disable_parallel_tool_use":false}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := testCodec().EncodeRequest(&tt.req)
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
