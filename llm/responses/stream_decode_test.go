package responses

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/heddle-gw/heddle/internal/golden"
	"github.com/heddle-gw/heddle/llm"
)

// collect reads a decoder to its end.
func collect(d llm.StreamDecoder) ([]llm.Event, error) {
	var out []llm.Event
	for {
		e, err := d.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, e)
		if len(out) > 100000 {
			return out, errors.New("decoder does not end")
		}
	}
}

// TestStreamDecodeGolden decodes every stream fixture. For streams that end
// cleanly, the events' Raw frames put together must be the input: the
// same-format fast path forwards exactly those bytes.
func TestStreamDecodeGolden(t *testing.T) {
	wantErr := map[string]error{"truncated.sse": ErrTruncated}
	for _, path := range golden.Glob(t, filepath.Join("testdata", "streams", "*.sse")) {
		t.Run(path, func(t *testing.T) {
			in := golden.Read(t, path)
			events, err := collect(New().NewStreamDecoder(iotest.HalfReader(bytes.NewReader(in))))
			name := path[strings.LastIndex(path, "/")+1:]
			if !errors.Is(err, wantErr[name]) {
				t.Fatalf("err = %v, want %v", err, wantErr[name])
			}
			golden.Check(t, golden.Beside(path, ".events.golden"), dumpEvents(t, events))
			if err != nil {
				return
			}
			var raw []byte
			for _, e := range events {
				raw = append(raw, e.Raw...)
			}
			if !bytes.Equal(raw, in) {
				t.Errorf("Raw frames do not rebuild the stream:\n%s", raw)
			}
		})
	}
}

// TestStreamDecodeEvents pins the canonical events of the tool stream.
func TestStreamDecodeEvents(t *testing.T) {
	events, err := collect(New().NewStreamDecoder(bytes.NewReader(golden.Read(t, "testdata/streams/reasoning_tool.sse"))))
	if err != nil {
		t.Fatal(err)
	}
	for i := range events {
		events[i].Raw = nil
	}
	usage := &llm.Usage{Input: 100, CacheRead: 800, Output: 50, Reasoning: 30}
	want := []llm.Event{
		{Type: llm.EventMessageStart, ID: "resp_s2", Model: "gpt-5-codex"},
		{Type: llm.EventBlockStart, Index: 0, Block: &llm.Part{Type: llm.PartThinking, ID: "rs_s2", Family: "openai"}},
		{Type: llm.EventThinkDelta, Index: 0, Text: "**Plan**"},
		{Type: llm.EventThinkDelta, Index: 0, Text: "\n\n"},
		{Type: llm.EventThinkDelta, Index: 0, Text: "Run ls."},
		{Type: llm.EventBlockStop, Index: 0},
		{Type: llm.EventBlockStart, Index: 1, Block: &llm.Part{Type: llm.PartRedactedThinking, Data: "gAAAA-stream-enc", ID: "rs_s2", Family: "openai"}},
		{Type: llm.EventBlockStop, Index: 1},
		{Type: llm.EventBlockStart, Index: 2, Block: &llm.Part{Type: llm.PartToolCall, ID: "call_s2", Name: "shell"}},
		{Type: llm.EventToolDelta, Index: 2, Text: `{"command":`},
		{Type: llm.EventToolDelta, Index: 2, Text: `["ls"]}`},
		{Type: llm.EventBlockStop, Index: 2},
		{Type: llm.EventMessageDelta, StopReason: llm.StopToolUse, Usage: usage},
		{Type: llm.EventDone},
	}
	if !reflect.DeepEqual(events, want) {
		t.Errorf("events:\n%s\nwant:\n%s", dumpEvents(t, events), dumpEvents(t, want))
	}
}

// TestStreamDecodeTerminal checks how each kind of stream ends.
func TestStreamDecodeTerminal(t *testing.T) {
	tests := []struct {
		file    string
		last    llm.Event
		content string
	}{
		{"text.sse", llm.Event{Type: llm.EventDone}, "Hello there!"},
		{"done_items_only.sse", llm.Event{Type: llm.EventDone}, "Whole text at once."},
		{"failed.sse", llm.Event{Type: llm.EventError, ErrMessage: "The model failed to generate a response.", ErrCode: "server_error"}, ""},
		{"error_event.sse", llm.Event{Type: llm.EventError, ErrMessage: "Rate limit reached", ErrCode: "rate_limit_exceeded"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			events, err := collect(New().NewStreamDecoder(bytes.NewReader(golden.Read(t, "testdata/streams/"+tt.file))))
			if err != nil {
				t.Fatal(err)
			}
			last := events[len(events)-1]
			last.Raw = nil
			if !reflect.DeepEqual(last, tt.last) {
				t.Errorf("last event = %+v, want %+v", last, tt.last)
			}
			var text strings.Builder
			for _, e := range events {
				if e.Type == llm.EventTextDelta {
					text.WriteString(e.Text)
				}
			}
			if text.String() != tt.content {
				t.Errorf("text = %q, want %q", text.String(), tt.content)
			}
		})
	}
}

// TestStreamDecodeMalformed checks a broken frame is an error, not a panic.
func TestStreamDecodeMalformed(t *testing.T) {
	in := "data: {\"type\":\"response.created\",\"response\":{\"id\":\"r\"}}\n\ndata: {not json\n\n"
	events, err := collect(New().NewStreamDecoder(strings.NewReader(in)))
	if !errors.Is(err, llm.ErrMalformed) || len(events) != 1 {
		t.Fatalf("events %d, err %v; want 1 event then ErrMalformed", len(events), err)
	}
}
