package gateway

import (
	"bytes"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/anthropic"
	"github.com/heddle-gw/heddle/llm/openaichat"
)

// captureOutput records what a turn writes.
type captureOutput struct {
	served  Served
	commits int
	buf     bytes.Buffer
}

func (c *captureOutput) Commit(s Served)      { c.served = s; c.commits++ }
func (c *captureOutput) Write(p []byte) error { c.buf.Write(p); return nil }
func (c *captureOutput) Flush() error         { return nil }

func TestStreamWriter(t *testing.T) {
	raw := []byte("data: {\"raw\":true}\n\n")
	events := []llm.Event{
		{Type: llm.EventMessageStart, ID: "chatcmpl-1", Model: "gpt-5-mini", Raw: raw},
		{Type: llm.EventBlockStart, Index: 0, Block: &llm.Part{Type: llm.PartText}},
		{Type: llm.EventTextDelta, Index: 0, Text: "hi", Raw: raw},
		{Type: llm.EventError, ErrMessage: "upstream broke", ErrCode: "api_error"},
	}
	chat := dispatch.Target{Model: "gpt-5-mini", Provider: "openai", Format: llm.FormatChat}
	claude := dispatch.Target{Model: "claude-haiku-4-5", Provider: "anthropic", Format: llm.FormatAnthropic}
	tests := []struct {
		name     string
		inbound  llm.Format
		codec    llm.Codec
		target   dispatch.Target
		noRaw    bool
		wantRaw  int  // raw frames forwarded
		wantText bool // re-encoded text delta present
		wantErr  string
	}{
		{"same format forwards frames", llm.FormatChat, openaichat.New(), chat, false, 2, false, `"upstream broke"`},
		{"same format without raw re-encodes", llm.FormatChat, openaichat.New(), chat, true, 0, true, `"upstream broke"`},
		{"other format re-encodes", llm.FormatAnthropic, anthropic.New(), chat, false, 0, true, "event: error"},
		{"anthropic to anthropic forwards", llm.FormatAnthropic, anthropic.New(), claude, false, 2, false, "event: error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := &captureOutput{}
			w := &streamWriter{out: out, served: Served{RequestID: "req_1", Route: RouteExplicit, Stream: true}, inbound: tt.inbound, noRaw: tt.noRaw, buf: &bytes.Buffer{}}
			w.enc = tt.codec.NewStreamEncoder(w.buf)
			w.Commit(tt.target, true)
			for _, e := range events {
				if err := w.Write(e); err != nil {
					t.Fatal(err)
				}
			}
			got := out.buf.String()
			if out.commits != 1 || out.served.Model != tt.target.Model || out.served.Provider != tt.target.Provider || !out.served.Fallback {
				t.Errorf("served = %+v after %d commits", out.served, out.commits)
			}
			if n := strings.Count(got, `{"raw":true}`); n != tt.wantRaw {
				t.Errorf("raw frames = %d, want %d:\n%s", n, tt.wantRaw, got)
			}
			if has := strings.Contains(got, `"hi"`); has != tt.wantText {
				t.Errorf("re-encoded text present = %v, want %v:\n%s", has, tt.wantText, got)
			}
			if !strings.Contains(got, tt.wantErr) {
				t.Errorf("no native error frame (%q) in:\n%s", tt.wantErr, got)
			}
		})
	}
}

func TestFastPathLossless(t *testing.T) {
	tests := []struct {
		f      llm.Format
		stream bool
		usage  bool
		want   bool
	}{
		{llm.FormatChat, true, false, false},
		{llm.FormatChat, true, true, true},
		{llm.FormatChat, false, false, true},
		{llm.FormatAnthropic, true, false, true},
		{llm.FormatResponses, true, false, true},
	}
	for _, tt := range tests {
		if got := fastPathLossless(tt.f, &llm.Request{Stream: tt.stream, StreamUsage: tt.usage}); got != tt.want {
			t.Errorf("fastPathLossless(%s, stream=%v, usage=%v) = %v, want %v", tt.f, tt.stream, tt.usage, got, tt.want)
		}
	}
}
