package openaichat

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/heddle-gw/heddle/internal/golden"
	"github.com/heddle-gw/heddle/llm"
)

type eventView struct {
	llm.Event
	Raw string
}

func drain(d llm.StreamDecoder) ([]llm.Event, error) {
	var evs []llm.Event
	for {
		e, err := d.Next()
		if err != nil {
			return evs, err
		}
		evs = append(evs, e)
		if len(evs) > 100000 {
			return evs, errors.New("too many events")
		}
	}
}

func viewEvents(evs []llm.Event, end error) []any {
	out := make([]any, 0, len(evs)+1)
	for _, e := range evs {
		v := eventView{Event: e, Raw: string(e.Raw)}
		v.Event.Raw = nil
		out = append(out, v)
	}
	return append(out, map[string]string{"end": end.Error()})
}

func TestStreamDecodeGoldens(t *testing.T) {
	for _, f := range golden.Glob(t, "testdata/streams/*.sse") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			evs, end := drain(testCodec().NewStreamDecoder(bytes.NewReader(in)))
			golden.Check(t, golden.Beside(f, ".events.golden"), dump(t, viewEvents(evs, end)))
			evs2, end2 := drain(testCodec().NewStreamDecoder(iotest.OneByteReader(bytes.NewReader(in))))
			if !bytes.Equal(dump(t, viewEvents(evs, end)), dump(t, viewEvents(evs2, end2))) {
				t.Error("one-byte reads decode differently")
			}
			var raw []byte
			for _, e := range evs {
				raw = append(raw, e.Raw...)
			}
			if end == io.EOF && !bytes.Equal(raw, in) {
				t.Errorf("concatenated Raw differs from the stream:\n%q\n%q", raw, in)
			}
		})
	}
}

func TestStreamDecodeSummary(t *testing.T) {
	tests := []struct {
		file   string
		end    error
		stop   llm.StopReason
		usage  *llm.Usage
		blocks []llm.PartType
		ids    []string
	}{
		{"text_usage.sse", io.EOF, llm.StopEnd, &llm.Usage{Input: 16, CacheRead: 3, Output: 10}, []llm.PartType{llm.PartText}, nil},
		{"tool_calls.sse", io.EOF, llm.StopToolUse, &llm.Usage{Input: 18, CacheRead: 64, Output: 17},
			[]llm.PartType{llm.PartToolCall, llm.PartToolCall}, []string{"call_abc", "call_def"}},
		{"reasoning_no_done.sse", io.EOF, llm.StopEnd, &llm.Usage{Input: 10, CacheRead: 20, Output: 40, Reasoning: 25},
			[]llm.PartType{llm.PartThinking, llm.PartText}, nil},
		{"error.sse", io.EOF, "", nil, []llm.PartType{llm.PartText}, nil},
		{"truncated.sse", ErrStreamTruncated, "", nil, []llm.PartType{llm.PartText}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			in, err := os.ReadFile("testdata/streams/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			evs, end := drain(New().NewStreamDecoder(bytes.NewReader(in)))
			if !errors.Is(end, tt.end) {
				t.Errorf("end = %v, want %v", end, tt.end)
			}
			var (
				blocks []llm.PartType
				ids    []string
				delta  *llm.Event
				starts int
				stops  int
			)
			for i, e := range evs {
				switch e.Type {
				case llm.EventMessageStart:
					starts++
				case llm.EventBlockStart:
					blocks = append(blocks, e.Block.Type)
					if e.Block.ID != "" {
						ids = append(ids, e.Block.ID)
					}
				case llm.EventBlockStop:
					stops++
				case llm.EventMessageDelta:
					delta = &evs[i]
				}
			}
			if starts != 1 {
				t.Errorf("%d message_start events", starts)
			}
			if !equalTypes(blocks, tt.blocks) || strings.Join(ids, ",") != strings.Join(tt.ids, ",") {
				t.Errorf("blocks = %v ids %v, want %v %v", blocks, ids, tt.blocks, tt.ids)
			}
			if tt.stop == "" {
				return
			}
			if stops != len(blocks) {
				t.Errorf("%d block stops for %d blocks", stops, len(blocks))
			}
			if delta == nil || delta.StopReason != tt.stop || delta.Usage == nil || *delta.Usage != *tt.usage {
				t.Errorf("message_delta = %+v, want stop %q usage %+v", delta, tt.stop, tt.usage)
			}
			if last := evs[len(evs)-1]; last.Type != llm.EventDone {
				t.Errorf("last event = %s, want done", last.Type)
			}
		})
	}
}

func equalTypes(a, b []llm.PartType) bool {
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

func TestStreamDecodeMalformed(t *testing.T) {
	_, err := drain(New().NewStreamDecoder(strings.NewReader("data: {\"choices\":[}\n\n")))
	if !errors.Is(err, llm.ErrMalformed) {
		t.Errorf("err = %v, want llm.ErrMalformed", err)
	}
}

// TestStreamReencodeIsByteExact decodes a stream written the way the API
// writes it (with include_usage) and encodes it again byte for byte.
func TestStreamReencodeIsByteExact(t *testing.T) {
	in, err := os.ReadFile("testdata/streams/text_usage.sse")
	if err != nil {
		t.Fatal(err)
	}
	evs, end := drain(New().NewStreamDecoder(bytes.NewReader(in)))
	if end != io.EOF {
		t.Fatal(end)
	}
	c := &Codec{Now: func() time.Time { return time.Unix(1741570283, 0) }}
	var out bytes.Buffer
	enc := c.NewUsageStreamEncoder(&out, true)
	for _, e := range evs {
		e.Raw = nil
		if err := enc.Encode(e); err != nil {
			t.Fatal(err)
		}
	}
	if out.String() != string(in) {
		t.Errorf("re-encoded stream differs:\n%s\n--- want\n%s", out.String(), in)
	}
}

func TestStreamEncodeGoldens(t *testing.T) {
	u := func(u llm.Usage) *llm.Usage { return &u }
	toolStream := []llm.Event{
		{Type: llm.EventMessageStart, ID: "msg_01", Model: "claude-sonnet-4-5", Usage: u(llm.Usage{Input: 50})},
		{Type: llm.EventBlockStart, Index: 0, Block: &llm.Part{Type: llm.PartThinking, Family: "anthropic"}},
		{Type: llm.EventThinkDelta, Index: 0, Text: "hidden"},
		{Type: llm.EventBlockStop, Index: 0},
		{Type: llm.EventBlockStart, Index: 1, Block: &llm.Part{Type: llm.PartText}},
		{Type: llm.EventTextDelta, Index: 1, Text: "Let me <look> & see."},
		{Type: llm.EventBlockStop, Index: 1},
		{Type: llm.EventPing},
		{Type: llm.EventBlockStart, Index: 2, Block: &llm.Part{Type: llm.PartToolCall, ID: "toolu_01", Name: "read"}},
		{Type: llm.EventToolDelta, Index: 2, Text: ""},
		{Type: llm.EventToolDelta, Index: 2, Text: `{"path":`},
		{Type: llm.EventToolDelta, Index: 2, Text: `"a.go"}`},
		{Type: llm.EventBlockStop, Index: 2},
		{Type: llm.EventBlockStart, Index: 3, Block: &llm.Part{Type: llm.PartToolCall, Name: "ls"}},
		{Type: llm.EventBlockStop, Index: 3},
		{Type: llm.EventMessageDelta, StopReason: llm.StopToolUse, Usage: u(llm.Usage{Input: 50, CacheRead: 200, Output: 30})},
		{Type: llm.EventDone},
	}
	tests := []struct {
		name         string
		includeUsage bool
		events       []llm.Event
	}{
		{"tool_calls_with_usage", true, toolStream},
		{"tool_calls_without_usage", false, toolStream},
		{"no_start_no_delta", false, []llm.Event{
			{Type: llm.EventTextDelta, Index: 0, Text: "orphan"},
			{Type: llm.EventDone},
		}},
		{"error_mid_stream", false, []llm.Event{
			{Type: llm.EventMessageStart, ID: "chatcmpl-9", Model: "gpt-4.1"},
			{Type: llm.EventTextDelta, Index: 0, Text: "par"},
			{Type: llm.EventError, ErrCode: "overloaded_error", ErrMessage: "Overloaded"},
		}},
		{"error_unknown_code", false, []llm.Event{
			{Type: llm.EventError, ErrCode: "dispatch.attempts_exhausted", ErrMessage: "every upstream attempt failed"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			enc := testCodec().NewUsageStreamEncoder(&out, tt.includeUsage)
			for _, e := range tt.events {
				if err := enc.Encode(e); err != nil {
					t.Fatal(err)
				}
			}
			golden.Check(t, filepath.Join("testdata", "encode", tt.name+".sse.golden"), out.Bytes())
			evs, err := drain(New().NewStreamDecoder(bytes.NewReader(out.Bytes())))
			if err != io.EOF && !strings.HasPrefix(tt.name, "error") {
				t.Fatalf("decoding the encoded stream ended with %v", err)
			}
			if len(evs) == 0 {
				t.Fatal("no events decoded")
			}
		})
	}
}
