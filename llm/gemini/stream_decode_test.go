package gemini

import (
	"bytes"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/heddle-gw/heddle/internal/golden"
	"github.com/heddle-gw/heddle/llm"
)

// TestStreamDecodeGolden decodes every stream fixture; for streams that end
// cleanly the events' Raw frames must rebuild the input byte for byte.
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
				t.Errorf("Raw frames do not rebuild the stream:\n%q", raw)
			}
		})
	}
}

// TestStreamDecodeEvents pins the events of the thinking and tool stream.
func TestStreamDecodeEvents(t *testing.T) {
	events, err := collect(New().NewStreamDecoder(bytes.NewReader(golden.Read(t, "testdata/streams/thinking_tool.sse"))))
	if err != nil {
		t.Fatal(err)
	}
	for i := range events {
		events[i].Raw = nil
	}
	want := []llm.Event{
		{Type: llm.EventMessageStart, ID: "s2", Model: "gemini-2.5-pro", Usage: &llm.Usage{Input: 100, CacheRead: 100}},
		{Type: llm.EventBlockStart, Index: 0, Block: &llm.Part{Type: llm.PartThinking, Family: "google"}},
		{Type: llm.EventThinkDelta, Index: 0, Text: "**Planning** I will call the tool."},
		{Type: llm.EventThinkDelta, Index: 0, Text: " Done planning."},
		{Type: llm.EventThinkDelta, Index: 0, Signature: "CiQsigT"},
		{Type: llm.EventBlockStop, Index: 0},
		{Type: llm.EventBlockStart, Index: 1, Block: &llm.Part{Type: llm.PartText}},
		{Type: llm.EventTextDelta, Index: 1, Text: "Checking."},
		{Type: llm.EventBlockStop, Index: 1},
		{Type: llm.EventBlockStart, Index: 2, Block: &llm.Part{Type: llm.PartToolCall, ID: "call_s2_1", Name: "get_weather", Signature: "CiQsigF", Family: "google"}},
		{Type: llm.EventToolDelta, Index: 2, Text: `{"city":"Paris"}`},
		{Type: llm.EventBlockStop, Index: 2},
		{Type: llm.EventBlockStart, Index: 3, Block: &llm.Part{Type: llm.PartToolCall, ID: "call_s2_2", Name: "get_weather"}},
		{Type: llm.EventToolDelta, Index: 3, Text: `{"city":"Rome"}`},
		{Type: llm.EventBlockStop, Index: 3},
		{Type: llm.EventMessageDelta, StopReason: llm.StopToolUse, Usage: &llm.Usage{Input: 100, CacheRead: 100, Output: 80, Reasoning: 50}},
		{Type: llm.EventDone},
	}
	if !reflect.DeepEqual(events, want) {
		t.Errorf("events:\n%s\nwant:\n%s", dumpEvents(t, events), dumpEvents(t, want))
	}
}

// TestStreamDecodeError checks an error chunk ends the stream as an error event.
func TestStreamDecodeError(t *testing.T) {
	events, err := collect(New().NewStreamDecoder(bytes.NewReader(golden.Read(t, "testdata/streams/error.sse"))))
	if err != nil {
		t.Fatal(err)
	}
	last := events[len(events)-1]
	if last.Type != llm.EventError || last.ErrMessage != "The model is overloaded. Please try again later." || last.ErrCode != "UNAVAILABLE" {
		t.Errorf("last event = %+v", last)
	}
	_, err = collect(New().NewStreamDecoder(strings.NewReader("data: {\"candidates\":[]}\n\ndata: [oops\n\n")))
	if !errors.Is(err, llm.ErrMalformed) {
		t.Errorf("malformed chunk: err = %v", err)
	}
}
