package e2e

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	antoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/openai/openai-go/v3"
	oaoption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
	"google.golang.org/genai"

	"github.com/heddle-gw/heddle/llm"
)

// TestSDK drives each official Go SDK through a tool-call round trip,
// streaming and not, through one Heddle whose tenants' upstreams speak a
// different wire format than the SDK: the model calls get_weather, the test
// runs it and sends the result, and the model answers with text. It checks
// what the SDK parsed (call id, name, arguments, text, stop reason, usage)
// and what the fake upstream received in its own format.
func TestSDK(t *testing.T) {
	in := startHeddle(t, map[string]string{"HEDDLE_CATALOG_FILE": sdkCatalogFile(t)})
	cases := []struct {
		name string
		run  func(t *testing.T, in *instance, stream bool)
	}{
		{"openai_chat_via_anthropic", sdkOpenAIChat},
		{"anthropic_messages_via_openai_chat", sdkAnthropic},
		{"openai_responses_via_gemini", sdkResponses},
		{"genai_via_openai_responses", sdkGenAI},
	}
	for _, c := range cases {
		for _, stream := range []bool{false, true} {
			mode := "non_streaming"
			if stream {
				mode = "streaming"
			}
			t.Run(c.name+"/"+mode, func(t *testing.T) {
				c.run(t, in, stream)
				if t.Failed() {
					t.Logf("heddle logs:\n%s", in.logs.String())
				}
			})
		}
	}
}

func sdkContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// sdkOpenAIChat: openai-go Chat Completions, served by an Anthropic upstream.
func sdkOpenAIChat(t *testing.T, in *instance, stream bool) {
	const callID = "toolu_01A09q90qw90lq917835lq9"
	tn, up := sdkTenant(t, in, "anthropic", "", "claude-sonnet-4-5-20250929", callID)
	client := openai.NewClient(oaoption.WithBaseURL(in.URL+"/v1"), oaoption.WithAPIKey(tn.Key), oaoption.WithMaxRetries(0))
	params := openai.ChatCompletionNewParams{
		Model:    "claude-sonnet-4-5",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(sdkSystem), openai.UserMessage(sdkPrompt)},
		Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: sdkToolName, Description: openai.String(sdkToolDesc),
			Parameters: shared.FunctionParameters{"type": "object", "required": []string{"city"},
				"properties": map[string]any{"city": map[string]any{"type": "string"}}},
		})},
	}
	if stream {
		params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	}
	first := chatTurn(t, client, params, stream)
	if len(first.Choices) != 1 || first.Choices[0].FinishReason != "tool_calls" || len(first.Choices[0].Message.ToolCalls) != 1 {
		t.Fatalf("first answer: %s", first.RawJSON())
	}
	call := first.Choices[0].Message.ToolCalls[0]
	if call.ID != callID || call.Function.Name != sdkToolName || !sameJSON(call.Function.Arguments, sdkToolArgs) {
		t.Errorf("tool call: id %q name %q args %q", call.ID, call.Function.Name, call.Function.Arguments)
	}
	if first.Usage.PromptTokens != sdkIn1 || first.Usage.CompletionTokens != sdkOut1 {
		t.Errorf("first usage %+v", first.Usage)
	}
	params.Messages = append(params.Messages, first.Choices[0].Message.ToParam(),
		openai.ToolMessage(getWeather(t, call.Function.Arguments), call.ID))
	second := chatTurn(t, client, params, stream)
	if len(second.Choices) != 1 || second.Choices[0].Message.Content != sdkFinalText || second.Choices[0].FinishReason != "stop" ||
		len(second.Choices[0].Message.ToolCalls) != 0 {
		t.Errorf("second answer: %s", second.RawJSON())
	}
	if second.Usage.PromptTokens != sdkIn2 || second.Usage.CompletionTokens != sdkOut2 {
		t.Errorf("second usage %+v", second.Usage)
	}
	reqs := upstreamRequests(t, in, up, 2, stream, "claude-sonnet-4-5-20250929")
	for _, r := range reqs {
		if r.Format != llm.FormatAnthropic || r.Path != "/v1/messages" {
			t.Errorf("upstream request %s format %s", r.Path, r.Format)
		}
	}
	checkAnthropicUpstream(t, reqs, callID)
}

func chatTurn(t *testing.T, client openai.Client, params openai.ChatCompletionNewParams, stream bool) *openai.ChatCompletion {
	t.Helper()
	ctx := sdkContext(t)
	if !stream {
		c, err := client.Chat.Completions.New(ctx, params)
		if err != nil {
			t.Fatalf("Chat.Completions.New: %v", err)
		}
		return c
	}
	s := client.Chat.Completions.NewStreaming(ctx, params)
	var acc openai.ChatCompletionAccumulator
	chunks := 0
	for s.Next() {
		chunks++
		if !acc.AddChunk(s.Current()) {
			t.Fatalf("the accumulator refused chunk %s", s.Current().RawJSON())
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	if chunks < 2 {
		t.Errorf("a stream of %d chunks", chunks)
	}
	return &acc.ChatCompletion
}

// sdkAnthropic: anthropic-sdk-go Messages, served by an OpenAI Chat upstream.
func sdkAnthropic(t *testing.T, in *instance, stream bool) {
	const callID = "call_Xk2f9QmZ3pL7"
	tn, up := sdkTenant(t, in, "openai", "/v1", "gpt-5-mini", callID)
	client := anthropic.NewClient(antoption.WithBaseURL(in.URL), antoption.WithAPIKey(tn.Key), antoption.WithMaxRetries(0))
	params := anthropic.MessageNewParams{
		Model: "gpt-5-mini", MaxTokens: 1024,
		System:   []anthropic.TextBlockParam{{Text: sdkSystem}},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(sdkPrompt))},
		Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{
			Name: sdkToolName, Description: anthropic.String(sdkToolDesc),
			InputSchema: anthropic.ToolInputSchemaParam{
				Properties: map[string]any{"city": map[string]any{"type": "string"}}, Required: []string{"city"}},
		}}},
	}
	first := messagesTurn(t, client, params, stream)
	if first.StopReason != anthropic.StopReasonToolUse || len(first.Content) != 1 || first.Content[0].Type != "tool_use" {
		t.Fatalf("first answer: %+v", first)
	}
	use := first.Content[0].AsToolUse()
	if use.ID != callID || use.Name != sdkToolName || !sameJSON(string(use.Input), sdkToolArgs) {
		t.Errorf("tool_use: id %q name %q input %s", use.ID, use.Name, use.Input)
	}
	if first.Usage.InputTokens != sdkIn1 || first.Usage.OutputTokens != sdkOut1 {
		t.Errorf("first usage %+v", first.Usage)
	}
	params.Messages = append(params.Messages, first.ToParam(),
		anthropic.NewUserMessage(anthropic.NewToolResultBlock(use.ID, getWeather(t, string(use.Input)), false)))
	second := messagesTurn(t, client, params, stream)
	if second.StopReason != anthropic.StopReasonEndTurn || len(second.Content) != 1 || second.Content[0].AsText().Text != sdkFinalText {
		t.Errorf("second answer: %+v", second)
	}
	if second.Usage.InputTokens != sdkIn2 || second.Usage.OutputTokens != sdkOut2 {
		t.Errorf("second usage %+v", second.Usage)
	}
	reqs := upstreamRequests(t, in, up, 2, stream, "gpt-5-mini")
	for _, r := range reqs {
		if r.Format != llm.FormatChat || r.Path != "/v1/chat/completions" {
			t.Errorf("upstream request %s format %s", r.Path, r.Format)
		}
	}
	checkChatUpstream(t, reqs, callID)
}

func messagesTurn(t *testing.T, client anthropic.Client, params anthropic.MessageNewParams, stream bool) *anthropic.Message {
	t.Helper()
	ctx := sdkContext(t)
	if !stream {
		m, err := client.Messages.New(ctx, params)
		if err != nil {
			t.Fatalf("Messages.New: %v", err)
		}
		return m
	}
	s := client.Messages.NewStreaming(ctx, params)
	var m anthropic.Message
	var types []string
	for s.Next() {
		ev := s.Current()
		types = append(types, ev.Type)
		if err := m.Accumulate(ev); err != nil {
			t.Fatalf("Accumulate: %v", err)
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	if len(types) < 4 || types[0] != "message_start" || types[len(types)-1] != "message_stop" {
		t.Errorf("stream events %v", types)
	}
	return &m
}

// sdkResponses: openai-go Responses, served by a Gemini upstream. Gemini
// calls carry no id, so the call_id the SDK sees is one Heddle made.
func sdkResponses(t *testing.T, in *instance, stream bool) {
	tn, up := sdkTenant(t, in, "google", "", "gemini-2.5-flash", "")
	client := openai.NewClient(oaoption.WithBaseURL(in.URL+"/v1"), oaoption.WithAPIKey(tn.Key), oaoption.WithMaxRetries(0))
	input := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage(sdkPrompt, responses.EasyInputMessageRoleUser)}
	params := responses.ResponseNewParams{
		Model: "gemini-2.5-flash", Instructions: openai.String(sdkSystem), Store: openai.Bool(false),
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input},
		Tools: []responses.ToolUnionParam{responses.ToolParamOfFunction(sdkToolName, map[string]any{
			"type": "object", "required": []string{"city"},
			"properties": map[string]any{"city": map[string]any{"type": "string"}}}, false)},
	}
	first := responsesTurn(t, client, params, stream)
	if first.Status != responses.ResponseStatusCompleted || len(first.Output) != 1 || first.Output[0].Type != "function_call" {
		t.Fatalf("first answer: %s", first.RawJSON())
	}
	call := first.Output[0].AsFunctionCall()
	t.Logf("the Responses SDK saw call_id %q for Gemini's id-less call", call.CallID)
	if call.CallID == "" || call.Name != sdkToolName || !sameJSON(call.Arguments, sdkToolArgs) {
		t.Errorf("function_call: call_id %q name %q arguments %q", call.CallID, call.Name, call.Arguments)
	}
	if first.Usage.InputTokens != sdkIn1 || first.Usage.OutputTokens != sdkOut1 {
		t.Errorf("first usage %s", first.Usage.RawJSON())
	}
	result := responses.ResponseInputItemParamOfFunctionCallOutput(getWeather(t, call.Arguments))
	result.OfFunctionCallOutput.CallID = openai.String(call.CallID)
	replayed := call.ToParam()
	input = append(input, responses.ResponseInputItemUnionParam{OfFunctionCall: &replayed}, result)
	params.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
	second := responsesTurn(t, client, params, stream)
	if second.Status != responses.ResponseStatusCompleted || second.OutputText() != sdkFinalText || len(second.Output) != 1 {
		t.Errorf("second answer: %s", second.RawJSON())
	}
	if second.Usage.InputTokens != sdkIn2 || second.Usage.OutputTokens != sdkOut2 {
		t.Errorf("second usage %s", second.Usage.RawJSON())
	}
	reqs := upstreamRequests(t, in, up, 2, stream, "gemini-2.5-flash")
	for _, r := range reqs {
		want := "/v1beta/models/gemini-2.5-flash:generateContent"
		if stream {
			want = "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
		}
		if r.Format != llm.FormatGemini || r.Path != want || (stream && r.Query != "alt=sse") {
			t.Errorf("upstream request %s?%s format %s", r.Path, r.Query, r.Format)
		}
	}
	checkGeminiUpstream(t, reqs)
}

func responsesTurn(t *testing.T, client openai.Client, params responses.ResponseNewParams, stream bool) *responses.Response {
	t.Helper()
	ctx := sdkContext(t)
	if !stream {
		r, err := client.Responses.New(ctx, params)
		if err != nil {
			t.Fatalf("Responses.New: %v", err)
		}
		return r
	}
	s := client.Responses.NewStreaming(ctx, params)
	var final *responses.Response
	var types []string
	var text, args string
	for s.Next() {
		ev := s.Current()
		types = append(types, ev.Type)
		switch ev.Type {
		case "response.output_text.delta":
			text += ev.Delta
		case "response.function_call_arguments.delta":
			args += ev.Delta
		case "response.completed":
			r := ev.AsResponseCompleted().Response
			final = &r
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	if final == nil || len(types) < 3 || types[0] != "response.created" || types[len(types)-1] != "response.completed" {
		t.Fatalf("stream events %v", types)
	}
	for _, it := range final.Output {
		switch it.Type {
		case "message":
			if text != final.OutputText() {
				t.Errorf("streamed text %q, completed text %q", text, final.OutputText())
			}
		case "function_call":
			if args != it.AsFunctionCall().Arguments {
				t.Errorf("streamed arguments %q, completed %q", args, it.AsFunctionCall().Arguments)
			}
		}
	}
	return final
}

// sdkGenAI: google.golang.org/genai generateContent, served by a Responses
// upstream (the override catalog's model). Heddle passes the upstream's
// call_id in functionCall.id, genai echoes it in functionResponse.id, and the
// Responses upstream gets a function_call and function_call_output that share
// the original call_id.
func sdkGenAI(t *testing.T, in *instance, stream bool) {
	const callID = "call_resp_42"
	tn, up := sdkTenant(t, in, "openai", "/v1", "gpt-5", callID)
	ctx := sdkContext(t)
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: tn.Key, Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: in.URL}})
	if err != nil {
		t.Fatal(err)
	}
	config := &genai.GenerateContentConfig{
		SystemInstruction: genai.NewContentFromText(sdkSystem, genai.RoleUser),
		Tools: []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{
			Name: sdkToolName, Description: sdkToolDesc,
			Parameters: &genai.Schema{Type: genai.TypeObject, Required: []string{"city"},
				Properties: map[string]*genai.Schema{"city": {Type: genai.TypeString}}},
		}}}},
	}
	contents := []*genai.Content{genai.NewContentFromText(sdkPrompt, genai.RoleUser)}
	first := genaiTurn(t, client, contents, config, stream)
	if len(first.calls) != 1 || first.text != "" || first.finish != genai.FinishReasonStop {
		t.Fatalf("first answer: %+v", first)
	}
	call := first.calls[0]
	args, _ := json.Marshal(call.Args)
	if call.ID != callID || call.Name != sdkToolName || !sameJSON(string(args), sdkToolArgs) {
		t.Errorf("functionCall: id %q name %q args %s", call.ID, call.Name, args)
	}
	if first.usage == nil || first.usage.PromptTokenCount != sdkIn1 || first.usage.CandidatesTokenCount != sdkOut1 {
		t.Errorf("first usage %+v", first.usage)
	}
	answer := genai.NewContentFromFunctionResponse(call.Name, map[string]any{"result": getWeather(t, string(args))}, genai.RoleUser)
	answer.Parts[0].FunctionResponse.ID = call.ID
	contents = append(contents, first.content, answer)
	second := genaiTurn(t, client, contents, config, stream)
	if second.text != sdkFinalText || len(second.calls) != 0 || second.finish != genai.FinishReasonStop {
		t.Errorf("second answer: %+v", second)
	}
	if second.usage == nil || second.usage.PromptTokenCount != sdkIn2 || second.usage.CandidatesTokenCount != sdkOut2 {
		t.Errorf("second usage %+v", second.usage)
	}
	reqs := upstreamRequests(t, in, up, 2, stream, "gpt-5")
	for _, r := range reqs {
		if r.Format != llm.FormatResponses || r.Path != "/v1/responses" {
			t.Errorf("upstream request %s format %s", r.Path, r.Format)
		}
	}
	if id := checkResponsesUpstream(t, reqs); id != callID {
		t.Errorf("the replayed call and its output have call_id %q, want %q", id, callID)
	}
}

// genaiAnswer is a generateContent answer, streamed chunks merged.
type genaiAnswer struct {
	text    string
	calls   []*genai.FunctionCall
	content *genai.Content
	finish  genai.FinishReason
	usage   *genai.GenerateContentResponseUsageMetadata
	chunks  int
}

func (a *genaiAnswer) add(t *testing.T, r *genai.GenerateContentResponse) {
	t.Helper()
	a.chunks++
	if r.UsageMetadata != nil {
		a.usage = r.UsageMetadata
	}
	if len(r.Candidates) != 1 || r.Candidates[0].Content == nil {
		t.Fatalf("chunk %d has no single candidate", a.chunks)
	}
	c := r.Candidates[0]
	if c.FinishReason != "" {
		a.finish = c.FinishReason
	}
	if a.content == nil {
		a.content = &genai.Content{Role: c.Content.Role}
	}
	for _, p := range c.Content.Parts {
		a.content.Parts = append(a.content.Parts, p)
		if p.FunctionCall != nil {
			a.calls = append(a.calls, p.FunctionCall)
		} else if !p.Thought {
			a.text += p.Text
		}
	}
}

func genaiTurn(t *testing.T, client *genai.Client, contents []*genai.Content, config *genai.GenerateContentConfig, stream bool) *genaiAnswer {
	t.Helper()
	ctx := sdkContext(t)
	a := &genaiAnswer{}
	if !stream {
		r, err := client.Models.GenerateContent(ctx, sdkResponsesModel, contents, config)
		if err != nil {
			t.Fatalf("GenerateContent: %v", err)
		}
		a.add(t, r)
		return a
	}
	for r, err := range client.Models.GenerateContentStream(ctx, sdkResponsesModel, contents, config) {
		if err != nil {
			t.Fatalf("GenerateContentStream: %v", err)
		}
		a.add(t, r)
	}
	if a.chunks == 0 {
		t.Fatal("an empty stream")
	}
	return a
}
