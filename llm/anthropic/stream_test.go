package anthropic

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/heddle-gw/heddle/internal/golden"
	"github.com/heddle-gw/heddle/llm"
)

// eventView is an llm.Event with Raw readable in goldens.
type eventView struct {
	llm.Event
	Raw string
}

// drain reads every event and the error that ended the stream.
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
			evs, end := drain(New().NewStreamDecoder(bytes.NewReader(in)))
			golden.Check(t, golden.Beside(f, ".events.golden"), dump(t, viewEvents(evs, end)))

			// Byte-wise delivery gives the same events.
			evs2, end2 := drain(New().NewStreamDecoder(iotest.OneByteReader(bytes.NewReader(in))))
			if !bytes.Equal(dump(t, viewEvents(evs, end)), dump(t, viewEvents(evs2, end2))) {
				t.Error("one-byte reads decode differently")
			}
			// The Raw of all events is the stream, byte for byte, up to the
			// end of the last complete frame.
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

func TestStreamDecodeEnds(t *testing.T) {
	tests := []struct {
		file string
		want error
	}{
		{"tool_use.sse", io.EOF},
		{"error.sse", io.EOF},
		{"truncated.sse", ErrStreamTruncated},
	}
	for _, tt := range tests {
		in, err := os.ReadFile("testdata/streams/" + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		d := New().NewStreamDecoder(bytes.NewReader(in))
		if _, err := drain(d); !errors.Is(err, tt.want) {
			t.Errorf("%s: end = %v, want %v", tt.file, err, tt.want)
		}
		if _, err := d.Next(); !errors.Is(err, tt.want) {
			t.Errorf("%s: Next after the end = %v, want %v again", tt.file, err, tt.want)
		}
	}
	_, err := drain(New().NewStreamDecoder(strings.NewReader("event: message_start\ndata: {not json}\n\n")))
	if !errors.Is(err, llm.ErrMalformed) {
		t.Errorf("bad frame: err = %v, want llm.ErrMalformed", err)
	}
}

func TestStreamDecodeUsage(t *testing.T) {
	in, err := os.ReadFile("testdata/streams/tool_use.sse")
	if err != nil {
		t.Fatal(err)
	}
	evs, _ := drain(New().NewStreamDecoder(bytes.NewReader(in)))
	var last llm.Event
	for _, e := range evs {
		if e.Type == llm.EventMessageDelta {
			last = e
		}
	}
	want := llm.Usage{Input: 472, CacheRead: 1024, Output: 89}
	if last.Usage == nil || *last.Usage != want || last.StopReason != llm.StopToolUse {
		t.Errorf("message_delta = %+v, usage %+v; want usage %+v and tool_use", last, last.Usage, want)
	}
}

// TestStreamReencodeIsByteExact decodes a stream written the way the API
// writes it and encodes the events again: the bytes must not change.
func TestStreamReencodeIsByteExact(t *testing.T) {
	in, err := os.ReadFile("testdata/streams/tool_use.sse")
	if err != nil {
		t.Fatal(err)
	}
	evs, end := drain(New().NewStreamDecoder(bytes.NewReader(in)))
	if end != io.EOF {
		t.Fatal(end)
	}
	var out bytes.Buffer
	enc := New().NewStreamEncoder(&out)
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
	tests := []struct {
		name   string
		events []llm.Event
	}{
		{
			name: "translated_tool_call",
			events: []llm.Event{
				{Type: llm.EventMessageStart, ID: "chatcmpl-1", Model: "gpt-4.1"},
				{Type: llm.EventBlockStart, Index: 0, Block: &llm.Part{Type: llm.PartText}},
				{Type: llm.EventTextDelta, Index: 0, Text: "Checking <now> & then"},
				{Type: llm.EventBlockStop, Index: 0},
				{Type: llm.EventBlockStart, Index: 1, Block: &llm.Part{Type: llm.PartToolCall, ID: "call_abc", Name: "get_weather"}},
				{Type: llm.EventToolDelta, Index: 1, Text: `{"city":`},
				{Type: llm.EventToolDelta, Index: 1, Text: `"Paris"}`},
				{Type: llm.EventBlockStop, Index: 1},
				{Type: llm.EventMessageDelta, StopReason: llm.StopToolUse, Usage: u(llm.Usage{Input: 90, CacheRead: 10, Output: 12})},
				{Type: llm.EventDone},
			},
		},
		{
			name: "foreign_reasoning_renumbered",
			events: []llm.Event{
				{Type: llm.EventMessageStart, ID: "resp_1", Model: "o4-mini", Usage: u(llm.Usage{Input: 5})},
				{Type: llm.EventBlockStart, Index: 0, Block: &llm.Part{Type: llm.PartRedactedThinking, Data: "gAAAA", Family: "openai"}},
				{Type: llm.EventBlockStop, Index: 0},
				{Type: llm.EventBlockStart, Index: 1, Block: &llm.Part{Type: llm.PartThinking, Family: "openai"}},
				{Type: llm.EventThinkDelta, Index: 1, Text: "summary"},
				{Type: llm.EventThinkDelta, Index: 1, Signature: "not-for-anthropic"},
				{Type: llm.EventBlockStop, Index: 1},
				{Type: llm.EventPing},
				{Type: llm.EventBlockStart, Index: 2, Block: &llm.Part{Type: llm.PartText}},
				{Type: llm.EventTextDelta, Index: 2, Text: "answer"},
				{Type: llm.EventBlockStop, Index: 2},
				{Type: llm.EventMessageDelta, StopReason: llm.StopEnd, Usage: u(llm.Usage{Input: 5, Output: 9, Reasoning: 4})},
				{Type: llm.EventDone},
			},
		},
		{
			name: "missing_frames_filled_in",
			events: []llm.Event{
				{Type: llm.EventTextDelta, Index: 3, Text: "no start"},
				{Type: llm.EventToolDelta, Index: 9, Text: "{}"},
				{Type: llm.EventBlockStart, Index: 4, Block: &llm.Part{Type: llm.PartToolCall, Name: "f"}},
				{Type: llm.EventDone},
			},
		},
		{
			name: "error_mid_stream",
			events: []llm.Event{
				{Type: llm.EventMessageStart, ID: "msg_1", Model: "m"},
				{Type: llm.EventBlockStart, Index: 0, Block: &llm.Part{Type: llm.PartText}},
				{Type: llm.EventTextDelta, Index: 0, Text: "par"},
				{Type: llm.EventError, ErrCode: "dispatch.attempts_exhausted", ErrMessage: "upstream failed"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			enc := testCodec().NewStreamEncoder(&out)
			for _, e := range tt.events {
				if err := enc.Encode(e); err != nil {
					t.Fatal(err)
				}
			}
			golden.Check(t, filepath.Join("testdata", "encode", tt.name+".sse.golden"), out.Bytes())
			// What the encoder writes, the decoder reads without error.
			evs, err := drain(New().NewStreamDecoder(bytes.NewReader(out.Bytes())))
			if err != io.EOF {
				t.Fatalf("decoding the encoded stream ended with %v", err)
			}
			if len(evs) == 0 {
				t.Fatal("no events decoded")
			}
		})
	}
}
