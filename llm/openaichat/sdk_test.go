package openaichat

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/heddle-gw/heddle/llm"
)

// fakeUpstream answers Chat Completions requests through the codec: a tool
// call first, then, once the conversation ends with a tool result, a final
// text. It keeps every decoded request for the test to inspect.
type fakeUpstream struct {
	codec    *Codec
	mu       sync.Mutex
	requests []*llm.Request
}

func (f *fakeUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req, err := f.codec.DecodeRequest(body)
	if err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(f.codec.EncodeError(http.StatusBadRequest, "invalid_request_error", err.Error()))
		return
	}
	f.mu.Lock()
	f.requests = append(f.requests, req)
	f.mu.Unlock()
	resp := scriptedAnswer(req)
	if !req.Stream {
		b, err := f.codec.EncodeResponse(resp)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	enc := f.codec.NewUsageStreamEncoder(w, req.StreamUsage)
	for _, e := range responseEvents(resp) {
		if err := enc.Encode(e); err != nil {
			return
		}
	}
}

func scriptedAnswer(req *llm.Request) *llm.Response {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == llm.RoleTool {
		return &llm.Response{ID: "chatcmpl-final", Model: req.Model, StopReason: llm.StopEnd,
			Content: []llm.Part{{Type: llm.PartText, Text: "It is 18°C in Paris."}},
			Usage:   llm.Usage{Input: 40, CacheRead: 10, Output: 8}}
	}
	return &llm.Response{ID: "chatcmpl-call", Model: req.Model, StopReason: llm.StopToolUse,
		Content: []llm.Part{{Type: llm.PartToolCall, ID: "call_fake1", Name: "get_weather", Arguments: `{"city":"Paris"}`}},
		Usage:   llm.Usage{Input: 30, Output: 12}}
}

// responseEvents renders a complete response as the canonical stream of it,
// splitting text and arguments into two deltas each.
func responseEvents(r *llm.Response) []llm.Event {
	u := r.Usage
	evs := []llm.Event{{Type: llm.EventMessageStart, ID: r.ID, Model: r.Model}}
	for i, p := range r.Content {
		block := p
		block.Text, block.Arguments = "", ""
		evs = append(evs, llm.Event{Type: llm.EventBlockStart, Index: i, Block: &block})
		text, typ := p.Text, llm.EventTextDelta
		if p.Type == llm.PartToolCall {
			text, typ = p.Arguments, llm.EventToolDelta
		}
		half := len(text) / 2
		evs = append(evs, llm.Event{Type: typ, Index: i, Text: text[:half]}, llm.Event{Type: typ, Index: i, Text: text[half:]},
			llm.Event{Type: llm.EventBlockStop, Index: i})
	}
	return append(evs, llm.Event{Type: llm.EventMessageDelta, StopReason: r.StopReason, Usage: &u}, llm.Event{Type: llm.EventDone})
}

// TestOfficialSDK runs a tool-call round trip with the official Go SDK,
// streaming (with usage) and not, against a server that speaks through this
// codec.
func TestOfficialSDK(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name := "non-streaming"
		if stream {
			name = "streaming"
		}
		t.Run(name, func(t *testing.T) {
			up := &fakeUpstream{codec: New()}
			srv := httptest.NewServer(up)
			defer srv.Close()
			client := sdk.NewClient(option.WithBaseURL(srv.URL+"/v1"), option.WithAPIKey("rk_test"), option.WithMaxRetries(0))
			params := sdk.ChatCompletionNewParams{
				Model:    "gpt-4.1",
				Messages: []sdk.ChatCompletionMessageParamUnion{sdk.SystemMessage("Be brief."), sdk.UserMessage("Weather in Paris?")},
				Tools: []sdk.ChatCompletionToolUnionParam{sdk.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
					Name: "get_weather", Description: sdk.String("Get the weather"),
					Parameters: shared.FunctionParameters{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}},
				})},
			}
			if stream {
				params.StreamOptions = sdk.ChatCompletionStreamOptionsParam{IncludeUsage: sdk.Bool(true)}
			}
			first := turn(t, client, params, stream)
			if len(first.Choices) != 1 || first.Choices[0].FinishReason != "tool_calls" || len(first.Choices[0].Message.ToolCalls) != 1 {
				t.Fatalf("first answer = %+v", first)
			}
			call := first.Choices[0].Message.ToolCalls[0]
			var args struct{ City string }
			if err := json.Unmarshal([]byte(call.Function.Arguments), &args); err != nil || call.ID != "call_fake1" ||
				call.Function.Name != "get_weather" || args.City != "Paris" {
				t.Fatalf("tool call = %+v, %v", call, err)
			}
			if first.Usage.PromptTokens != 30 || first.Usage.CompletionTokens != 12 {
				t.Errorf("first usage = %+v", first.Usage)
			}
			params.Messages = append(params.Messages, first.Choices[0].Message.ToParam(), sdk.ToolMessage("18°C", call.ID))
			second := turn(t, client, params, stream)
			if len(second.Choices) != 1 || second.Choices[0].Message.Content != "It is 18°C in Paris." || second.Choices[0].FinishReason != "stop" ||
				second.Usage.PromptTokens != 50 || second.Usage.PromptTokensDetails.CachedTokens != 10 || second.Usage.CompletionTokens != 8 {
				t.Errorf("second answer = %+v", second)
			}
			if len(up.requests) != 2 {
				t.Fatalf("%d requests reached the upstream", len(up.requests))
			}
			got := up.requests[1]
			if got.Stream != stream || got.StreamUsage != stream || got.System[0].Text != "Be brief." || len(got.Tools) != 1 || len(got.Messages) != 3 {
				t.Fatalf("second request = %+v", got)
			}
			if c := got.Messages[1].Content; len(c) != 1 || c[0].ID != "call_fake1" || c[0].Arguments != `{"city":"Paris"}` {
				t.Errorf("replayed tool call = %+v", c)
			}
			if res := got.Messages[2]; res.Role != llm.RoleTool || res.Content[0].ID != "call_fake1" || res.Content[0].Result[0].Text != "18°C" {
				t.Errorf("tool result = %+v", res)
			}
		})
	}
}

func turn(t *testing.T, client sdk.Client, params sdk.ChatCompletionNewParams, stream bool) *sdk.ChatCompletion {
	t.Helper()
	ctx := context.Background()
	if !stream {
		c, err := client.Chat.Completions.New(ctx, params)
		if err != nil {
			t.Fatalf("Chat.Completions.New: %v", err)
		}
		return c
	}
	s := client.Chat.Completions.NewStreaming(ctx, params)
	var acc sdk.ChatCompletionAccumulator
	for s.Next() {
		if !acc.AddChunk(s.Current()) {
			t.Fatalf("the accumulator refused chunk %s", s.Current().RawJSON())
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	return &acc.ChatCompletion
}
