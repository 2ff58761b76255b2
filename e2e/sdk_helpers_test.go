package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
)

// The tool every SDK round trip declares, the call the fake upstream makes,
// what the test's tool returns and the model's final answer.
const (
	sdkToolName   = "get_weather"
	sdkToolDesc   = "Get the current weather in a city"
	sdkToolArgs   = `{"city":"Paris"}`
	sdkToolResult = "18°C and sunny"
	sdkFinalText  = "It is 18°C and sunny in Paris."
	sdkPrompt     = "What is the weather in Paris?"
	sdkSystem     = "You are a terse weather assistant."
	// sdkResponsesModel is the override catalog's model served by the
	// Responses-format provider, which no default model binds.
	sdkResponsesModel = "gpt-5-responses"
)

// Usage the fake upstream reports on each turn, distinct so a swapped or
// dropped field shows.
const (
	sdkIn1, sdkOut1 = 31, 12
	sdkIn2, sdkOut2 = 57, 9
)

// getWeather is the tool the test executes for the model.
func getWeather(t *testing.T, args string) string {
	t.Helper()
	var a struct {
		City string `json:"city"`
	}
	if err := json.Unmarshal([]byte(args), &a); err != nil || a.City != "Paris" {
		t.Fatalf("tool called with %q: %v", args, err)
	}
	return sdkToolResult
}

// sdkSteps scripts a tool call and then the final text.
func sdkSteps(callID string) []dispatchtest.Step {
	return []dispatchtest.Step{
		{Tool: &dispatchtest.ToolCall{ID: callID, Name: sdkToolName, Arguments: sdkToolArgs},
			InputTokens: sdkIn1, OutputTokens: sdkOut1},
		{Text: sdkFinalText, InputTokens: sdkIn2, OutputTokens: sdkOut2},
	}
}

// sdkCatalogFile writes an override catalog adding sdkResponsesModel, bound
// to the "openai-responses" provider as upstream "gpt-5", and returns its path.
func sdkCatalogFile(t *testing.T) string {
	t.Helper()
	f := catalog.File{Version: "e2e-sdk", Models: []catalog.Model{{
		ID: sdkResponsesModel, Family: "openai", Tier: catalog.TierFrontier, ContextWindow: 400000, MaxOutput: 128000,
		Capabilities: catalog.Capabilities{Tools: true, Vision: true, Thinking: true, JSON: true},
		Price:        catalog.Price{Input: 1.25, Output: 10, CacheRead: 0.125},
		Bindings:     []catalog.Binding{{Provider: "openai-responses", Upstream: "gpt-5"}},
	}}}
	return writeJSONFile(t, "catalog.json", f)
}

func writeJSONFile(t *testing.T, name string, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

var sdkTenants atomic.Int64

// sdkTenant signs up a fresh organisation whose credential for provider
// points at a fresh fake upstream (under path, e.g. "/v1"), and scripts the
// upstream model's tool call and final text.
func sdkTenant(t *testing.T, in *instance, provider, path, upstreamModel, callID string) (*tenant, *dispatchtest.Upstream) {
	t.Helper()
	up := dispatchtest.NewUpstream(t)
	up.Script(upstreamModel, sdkSteps(callID)...)
	email := fmt.Sprintf("sdk%d@example.com", sdkTenants.Add(1))
	return signUp(t, in.URL, email, provider, fakeSecret, up.URL+path), up
}

// upstreamRequests waits for nothing: it returns the upstream's requests and
// fails unless there are exactly n, each of format want, streamed or not as
// the client asked, for upstreamModel.
func upstreamRequests(t *testing.T, in *instance, up *dispatchtest.Upstream, n int, stream bool, upstreamModel string) []dispatchtest.Request {
	t.Helper()
	reqs := up.Requests()
	if len(reqs) != n {
		t.Fatalf("the upstream got %d requests, want %d\nheddle logs:\n%s", len(reqs), n, in.logs.String())
	}
	for i, r := range reqs {
		if r.Stream != stream || r.Model != upstreamModel {
			t.Errorf("upstream request %d: stream %v model %q, want %v %q", i, r.Stream, r.Model, stream, upstreamModel)
		}
		if r.Header.Get("Authorization") != "Bearer "+fakeSecret && r.Header.Get("X-Api-Key") != fakeSecret &&
			r.Header.Get("X-Goog-Api-Key") != fakeSecret {
			t.Errorf("upstream request %d does not carry the tenant's credential", i)
		}
	}
	return reqs
}

func decodeBody(t *testing.T, r dispatchtest.Request, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("upstream body %s: %v", r.Body, err)
	}
}

// textOf reads a content field that is a string or a list of text blocks.
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, x := range blocks {
		b.WriteString(x.Text)
	}
	return b.String()
}

// sameJSON reports whether a and b are equal JSON values.
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// checkAnthropicUpstream checks what an Anthropic-format upstream received:
// the system text and tool on both turns, and on the second the replayed
// tool_use and its tool_result with the call's id.
func checkAnthropicUpstream(t *testing.T, reqs []dispatchtest.Request, callID string) {
	t.Helper()
	type block struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
		ToolUseID string          `json:"tool_use_id"`
		Content   json.RawMessage `json:"content"`
	}
	var body struct {
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
	}
	for i, r := range reqs {
		decodeBody(t, r, &body)
		if textOf(body.System) != sdkSystem || len(body.Tools) != 1 || body.Tools[0].Name != sdkToolName ||
			!strings.Contains(string(body.Tools[0].InputSchema), `"city"`) {
			t.Errorf("anthropic upstream request %d: system %s tools %+v", i, body.System, body.Tools)
		}
	}
	if len(body.Messages) != 3 || body.Messages[0].Role != "user" || textOf(body.Messages[0].Content) != sdkPrompt {
		t.Fatalf("second anthropic request messages: %s", reqs[len(reqs)-1].Body)
	}
	var call, result []block
	_ = json.Unmarshal(body.Messages[1].Content, &call)
	_ = json.Unmarshal(body.Messages[2].Content, &result)
	var use *block
	for i := range call {
		if call[i].Type == "tool_use" {
			use = &call[i]
		}
	}
	if body.Messages[1].Role != "assistant" || use == nil || use.ID != callID || use.Name != sdkToolName ||
		!sameJSON(string(use.Input), sdkToolArgs) {
		t.Errorf("replayed tool_use: %s", body.Messages[1].Content)
	}
	if body.Messages[2].Role != "user" || len(result) != 1 || result[0].Type != "tool_result" ||
		result[0].ToolUseID != callID || textOf(result[0].Content) != sdkToolResult {
		t.Errorf("tool_result: %s", body.Messages[2].Content)
	}
}

// checkChatUpstream checks what a Chat Completions upstream received.
func checkChatUpstream(t *testing.T, reqs []dispatchtest.Request, callID string) {
	t.Helper()
	var body struct {
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Type     string `json:"type"`
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	for i, r := range reqs {
		decodeBody(t, r, &body)
		if len(body.Tools) != 1 || body.Tools[0].Type != "function" || body.Tools[0].Function.Name != sdkToolName ||
			!strings.Contains(string(body.Tools[0].Function.Parameters), `"city"`) {
			t.Errorf("chat upstream request %d tools: %+v", i, body.Tools)
		}
	}
	m := body.Messages
	if len(m) != 4 || m[0].Role != "system" || textOf(m[0].Content) != sdkSystem || m[1].Role != "user" ||
		textOf(m[1].Content) != sdkPrompt {
		t.Fatalf("second chat request messages: %s", reqs[len(reqs)-1].Body)
	}
	if m[2].Role != "assistant" || len(m[2].ToolCalls) != 1 || m[2].ToolCalls[0].ID != callID ||
		m[2].ToolCalls[0].Function.Name != sdkToolName || !sameJSON(m[2].ToolCalls[0].Function.Arguments, sdkToolArgs) {
		t.Errorf("replayed tool call: %+v", m[2])
	}
	if m[3].Role != "tool" || m[3].ToolCallID != callID || textOf(m[3].Content) != sdkToolResult {
		t.Errorf("tool message: role %q id %q content %s", m[3].Role, m[3].ToolCallID, m[3].Content)
	}
}

// checkGeminiUpstream checks what a Gemini upstream received. Gemini calls
// carry no ids: the call and its response pair by name.
func checkGeminiUpstream(t *testing.T, reqs []dispatchtest.Request) {
	t.Helper()
	type part struct {
		Text         *string `json:"text"`
		FunctionCall *struct {
			Name string          `json:"name"`
			Args json.RawMessage `json:"args"`
		} `json:"functionCall"`
		FunctionResponse *struct {
			Name     string          `json:"name"`
			Response json.RawMessage `json:"response"`
		} `json:"functionResponse"`
	}
	var body struct {
		SystemInstruction *struct {
			Parts []part `json:"parts"`
		} `json:"systemInstruction"`
		Contents []struct {
			Role  string `json:"role"`
			Parts []part `json:"parts"`
		} `json:"contents"`
		Tools []struct {
			FunctionDeclarations []struct {
				Name string `json:"name"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	for i, r := range reqs {
		decodeBody(t, r, &body)
		si := body.SystemInstruction
		if si == nil || len(si.Parts) != 1 || si.Parts[0].Text == nil || *si.Parts[0].Text != sdkSystem ||
			len(body.Tools) != 1 || len(body.Tools[0].FunctionDeclarations) != 1 ||
			body.Tools[0].FunctionDeclarations[0].Name != sdkToolName {
			t.Errorf("gemini upstream request %d: %s", i, r.Body)
		}
	}
	c := body.Contents
	if len(c) != 3 || c[0].Role != "user" || len(c[0].Parts) != 1 || c[0].Parts[0].Text == nil ||
		*c[0].Parts[0].Text != sdkPrompt {
		t.Fatalf("second gemini request contents: %s", reqs[len(reqs)-1].Body)
	}
	var fc, fr int
	for _, p := range c[1].Parts {
		if p.FunctionCall != nil && p.FunctionCall.Name == sdkToolName && sameJSON(string(p.FunctionCall.Args), sdkToolArgs) {
			fc++
		}
	}
	for _, p := range c[2].Parts {
		if p.FunctionResponse != nil && p.FunctionResponse.Name == sdkToolName &&
			strings.Contains(string(p.FunctionResponse.Response), sdkToolResult) {
			fr++
		}
	}
	if c[1].Role != "model" || fc != 1 || c[2].Role != "user" || fr != 1 {
		t.Errorf("replayed call and response: %s", reqs[len(reqs)-1].Body)
	}
}

// checkResponsesUpstream checks what a Responses upstream received and
// returns the call_id the replayed function_call and its output share.
func checkResponsesUpstream(t *testing.T, reqs []dispatchtest.Request) string {
	t.Helper()
	type item struct {
		Type      string          `json:"type"`
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		CallID    string          `json:"call_id"`
		Name      string          `json:"name"`
		Arguments string          `json:"arguments"`
		Output    json.RawMessage `json:"output"`
	}
	var body struct {
		Instructions string `json:"instructions"`
		Input        []item `json:"input"`
		Tools        []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tools"`
	}
	for i, r := range reqs {
		decodeBody(t, r, &body)
		sys := body.Instructions
		if sys == "" && len(body.Input) > 0 && (body.Input[0].Role == "system" || body.Input[0].Role == "developer") {
			sys = textOf(body.Input[0].Content)
		}
		if sys != sdkSystem || len(body.Tools) != 1 || body.Tools[0].Type != "function" || body.Tools[0].Name != sdkToolName {
			t.Errorf("responses upstream request %d: %s", i, r.Body)
		}
	}
	var call, out *item
	for i := range body.Input {
		switch body.Input[i].Type {
		case "function_call":
			call = &body.Input[i]
		case "function_call_output":
			out = &body.Input[i]
		}
	}
	if call == nil || out == nil || call.CallID == "" || call.CallID != out.CallID || call.Name != sdkToolName ||
		!sameJSON(call.Arguments, sdkToolArgs) || textOf(out.Output) != sdkToolResult {
		t.Fatalf("second responses request: %s", reqs[len(reqs)-1].Body)
	}
	return call.CallID
}
