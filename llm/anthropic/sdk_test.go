package anthropic

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/heddle-gw/heddle/llm"
)

// fakeUpstream answers Messages requests through the codec: a tool call
// first, then, once the conversation ends with a tool result, a final text.
// It keeps every decoded request for the test to inspect.
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
	enc := f.codec.NewStreamEncoder(w)
	for _, e := range responseEvents(resp) {
		if err := enc.Encode(e); err != nil {
			return
		}
	}
}

func scriptedAnswer(req *llm.Request) *llm.Response {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == llm.RoleTool {
		return &llm.Response{ID: "msg_final", Model: req.Model, StopReason: llm.StopEnd,
			Content: []llm.Part{{Type: llm.PartText, Text: "It is 18°C in Paris."}},
			Usage:   llm.Usage{Input: 40, CacheRead: 10, Output: 8}}
	}
	return &llm.Response{ID: "msg_call", Model: req.Model, StopReason: llm.StopToolUse,
		Content: []llm.Part{
			{Type: llm.PartText, Text: "Let me look."},
			{Type: llm.PartToolCall, ID: "toolu_fake1", Name: "get_weather", Arguments: `{"city":"Paris"}`},
		},
		Usage: llm.Usage{Input: 30, Output: 12}}
}

// responseEvents renders a complete response as the canonical stream of it,
// splitting text and arguments into two deltas each.
func responseEvents(r *llm.Response) []llm.Event {
	u := r.Usage
	evs := []llm.Event{{Type: llm.EventMessageStart, ID: r.ID, Model: r.Model, Usage: &llm.Usage{Input: u.Input, CacheRead: u.CacheRead}}}
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
// streaming and not, against a server that speaks through this codec.
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
			client := sdk.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("rk_test"), option.WithMaxRetries(0))
			params := sdk.MessageNewParams{
				Model: "claude-sonnet-4-5", MaxTokens: 1024,
				System:   []sdk.TextBlockParam{{Text: "Be brief."}},
				Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("Weather in Paris?"))},
				Tools: []sdk.ToolUnionParam{{OfTool: &sdk.ToolParam{
					Name: "get_weather", Description: sdk.String("Get the weather"),
					InputSchema: sdk.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}, Required: []string{"city"}},
				}}},
			}
			first := turn(t, client, params, stream)
			if len(first.Content) != 2 || first.StopReason != sdk.StopReasonToolUse {
				t.Fatalf("first answer = %+v", first)
			}
			call := first.Content[1].AsToolUse()
			var args struct{ City string }
			if err := json.Unmarshal(call.Input, &args); err != nil || call.ID != "toolu_fake1" || call.Name != "get_weather" || args.City != "Paris" {
				t.Fatalf("tool call = %+v (%s), %v", call, call.Input, err)
			}
			if first.Content[0].AsText().Text != "Let me look." || first.Usage.InputTokens != 30 || first.Usage.OutputTokens != 12 {
				t.Errorf("first answer text %q usage %+v", first.Content[0].AsText().Text, first.Usage)
			}
			params.Messages = append(params.Messages, first.ToParam(),
				sdk.NewUserMessage(sdk.NewToolResultBlock(call.ID, "18°C", false)))
			second := turn(t, client, params, stream)
			if len(second.Content) != 1 || second.Content[0].AsText().Text != "It is 18°C in Paris." || second.StopReason != sdk.StopReasonEndTurn ||
				second.Usage.InputTokens != 40 || second.Usage.CacheReadInputTokens != 10 || second.Usage.OutputTokens != 8 {
				t.Errorf("second answer = %+v", second)
			}
			if len(up.requests) != 2 {
				t.Fatalf("%d requests reached the upstream", len(up.requests))
			}
			got := up.requests[1]
			if got.Stream != stream || got.System[0].Text != "Be brief." || len(got.Tools) != 1 || len(got.Messages) != 3 {
				t.Fatalf("second request = %+v", got)
			}
			if res := got.Messages[2]; res.Role != llm.RoleTool || res.Content[0].ID != "toolu_fake1" || res.Content[0].Result[0].Text != "18°C" {
				t.Errorf("tool result = %+v", res)
			}
		})
	}
}

func turn(t *testing.T, client sdk.Client, params sdk.MessageNewParams, stream bool) *sdk.Message {
	t.Helper()
	ctx := context.Background()
	if !stream {
		m, err := client.Messages.New(ctx, params)
		if err != nil {
			t.Fatalf("Messages.New: %v", err)
		}
		return m
	}
	s := client.Messages.NewStreaming(ctx, params)
	var m sdk.Message
	for s.Next() {
		if err := m.Accumulate(s.Current()); err != nil {
			t.Fatalf("Accumulate: %v", err)
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	return &m
}
