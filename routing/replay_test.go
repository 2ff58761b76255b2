package routing_test

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/anthropic"
	"github.com/heddle-gw/heddle/llm/openaichat"
	"github.com/heddle-gw/heddle/routing"
)

func cachedResponse() *llm.Response {
	return &llm.Response{
		ID: "msg_01", Model: "claude-sonnet-4-5",
		Content: []llm.Part{
			{Type: llm.PartThinking, Text: "The user wants the file list.", Signature: "sig==", Family: "anthropic"},
			text("Listing the files."),
			call("toolu_1", "Bash", `{"cmd":"ls"}`),
		},
		StopReason: llm.StopToolUse,
		Usage:      llm.Usage{Input: 120, Output: 45, CacheRead: 3000, CacheWrite: 10},
	}
}

func TestReplayEvents(t *testing.T) {
	resp := cachedResponse()
	start := llm.Usage{Input: 120, CacheRead: 3000, CacheWrite: 10}
	full := resp.Usage
	want := []llm.Event{
		{Type: llm.EventMessageStart, ID: "msg_01", Model: "claude-sonnet-4-5", Usage: &start},
		{Type: llm.EventBlockStart, Index: 0, Block: &llm.Part{Type: llm.PartThinking, Family: "anthropic"}},
		{Type: llm.EventThinkDelta, Index: 0, Text: "The user wants the file list."},
		{Type: llm.EventThinkDelta, Index: 0, Signature: "sig=="},
		{Type: llm.EventBlockStop, Index: 0},
		{Type: llm.EventBlockStart, Index: 1, Block: &llm.Part{Type: llm.PartText}},
		{Type: llm.EventTextDelta, Index: 1, Text: "Listing the files."},
		{Type: llm.EventBlockStop, Index: 1},
		{Type: llm.EventBlockStart, Index: 2, Block: &llm.Part{Type: llm.PartToolCall, ID: "toolu_1", Name: "Bash"}},
		{Type: llm.EventToolDelta, Index: 2, Text: `{"cmd":"ls"}`},
		{Type: llm.EventBlockStop, Index: 2},
		{Type: llm.EventMessageDelta, StopReason: llm.StopToolUse, Usage: &full},
		{Type: llm.EventDone},
	}
	if got := routing.ReplayEvents(resp); !reflect.DeepEqual(got, want) {
		t.Fatalf("ReplayEvents =\n%+v\nwant\n%+v", got, want)
	}
	if !reflect.DeepEqual(resp, cachedResponse()) {
		t.Fatal("ReplayEvents modified the response")
	}
	if routing.ReplayEvents(nil) != nil {
		t.Fatal("ReplayEvents(nil) != nil")
	}
}

// TestReplayThroughCodecs encodes the replay with a caller's stream encoder,
// decodes the bytes with the same format's decoder and rebuilds the answer.
func TestReplayThroughCodecs(t *testing.T) {
	chat := openaichat.New()
	for _, tc := range []struct {
		name  string
		codec llm.Codec
		enc   func(w io.Writer) llm.StreamEncoder
		want  []llm.Part // what the format can carry
	}{
		{"anthropic", anthropic.New(), anthropic.New().NewStreamEncoder, cachedResponse().Content},
		{"openai chat with include_usage", chat, func(w io.Writer) llm.StreamEncoder { return chat.NewUsageStreamEncoder(w, true) },
			cachedResponse().Content[1:]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			enc := tc.enc(&buf)
			for _, e := range routing.ReplayEvents(cachedResponse()) {
				if err := enc.Encode(e); err != nil {
					t.Fatal(err)
				}
			}
			got := rebuild(t, tc.codec.NewStreamDecoder(&buf))
			if !reflect.DeepEqual(got.Content, tc.want) || got.StopReason != llm.StopToolUse {
				t.Fatalf("rebuilt %+v (%s)\nwant %+v", got.Content, got.StopReason, tc.want)
			}
			if got.Usage.Output != 45 || got.Usage.Input+got.Usage.CacheRead+got.Usage.CacheWrite != 3130 {
				t.Fatalf("usage %+v, want 45 output and 3130 prompt tokens", got.Usage)
			}
		})
	}
}

// rebuild folds a decoded stream back into a response.
func rebuild(t *testing.T, d llm.StreamDecoder) llm.Response {
	t.Helper()
	var r llm.Response
	at := map[int]int{}
	for {
		e, err := d.Next()
		if errors.Is(err, io.EOF) {
			return r
		}
		if err != nil {
			t.Fatal(err)
		}
		switch e.Type {
		case llm.EventBlockStart:
			p := llm.Part{Type: e.Block.Type, ID: e.Block.ID, Name: e.Block.Name, Family: e.Block.Family}
			at[e.Index] = len(r.Content)
			r.Content = append(r.Content, p)
		case llm.EventTextDelta, llm.EventThinkDelta:
			i, ok := at[e.Index]
			if !ok {
				at[e.Index] = len(r.Content)
				kind := llm.PartText
				if e.Type == llm.EventThinkDelta {
					kind = llm.PartThinking
				}
				r.Content = append(r.Content, llm.Part{Type: kind})
				i = at[e.Index]
			}
			r.Content[i].Text += e.Text
			r.Content[i].Signature += e.Signature
		case llm.EventToolDelta:
			r.Content[at[e.Index]].Arguments += e.Text
		case llm.EventMessageDelta:
			r.StopReason = e.StopReason
			if e.Usage != nil {
				r.Usage = *e.Usage
			}
		}
	}
}
