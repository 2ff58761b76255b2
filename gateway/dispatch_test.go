package gateway

import (
	"bytes"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/anthropic"
	"github.com/heddle-gw/heddle/llm/openaichat"
)

// TestNewStreamEncoderUsage: a Chat stream carries the final usage chunk
// only when the caller asked for it (llm.UsageIncluder); formats that
// always report usage are untouched.
func TestNewStreamEncoderUsage(t *testing.T) {
	events := []llm.Event{
		{Type: llm.EventMessageStart, ID: "m1", Model: "gpt-5-mini"},
		{Type: llm.EventBlockStart, Index: 0, Block: &llm.Part{Type: llm.PartText}},
		{Type: llm.EventTextDelta, Index: 0, Text: "hi"},
		{Type: llm.EventBlockStop, Index: 0},
		{Type: llm.EventMessageDelta, StopReason: llm.StopEnd, Usage: &llm.Usage{Input: 3, Output: 2}},
		{Type: llm.EventDone},
	}
	for _, tt := range []struct {
		name      string
		codec     llm.Codec
		usage     bool
		wantUsage bool
	}{
		{name: "chat asked for usage", codec: openaichat.New(), usage: true, wantUsage: true},
		{name: "chat did not ask", codec: openaichat.New(), usage: false, wantUsage: false},
		{name: "anthropic always reports it", codec: anthropic.New(), usage: false, wantUsage: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			enc := newStreamEncoder(tt.codec, &buf, &llm.Request{Stream: true, StreamUsage: tt.usage})
			for _, e := range events {
				if err := enc.Encode(e); err != nil {
					t.Fatal(err)
				}
			}
			if got := strings.Contains(buf.String(), `"output_tokens":2`) || strings.Contains(buf.String(), `"completion_tokens":2`); got != tt.wantUsage {
				t.Errorf("usage in the stream = %v, want %v:\n%s", got, tt.wantUsage, buf.String())
			}
		})
	}
}
