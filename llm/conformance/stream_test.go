package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/openaichat"
)

// streamCallID is the tool-call id of each upstream stream fixture; Gemini
// sends none and the decoder derives one from the responseId.
var streamCallID = map[llm.Format]string{
	llm.FormatAnthropic: "toolu_01WeatherTomorrow",
	llm.FormatChat:      "call_WeatherTomorrow",
	llm.FormatResponses: "call_WeatherTomorrow",
	llm.FormatGemini:    "call_ForecastStream_1",
}

// streamView is the semantic view of a decoded stream.
type streamView struct {
	Model  string
	Blocks []string // block kinds in order
	Text   string
	Calls  []string
	Stop   llm.StopReason
	Usage  llm.Usage
}

// wantStream is what upstream B's stream says once a caller of format in
// has read it.
func wantStream(up, in llm.Format) streamView {
	return streamView{
		Model:  sourceModel[up],
		Blocks: []string{"text", "tool_call"},
		Text:   answerText,
		Calls:  []string{"call " + streamCallID[up] + ` get_weather {"city":"Paris","day":"tomorrow"}`},
		Stop:   llm.StopToolUse,
		Usage:  projectUsage(sourceUsage[up], in),
	}
}

// readEvents drains a stream decoder, which must end with io.EOF.
func readEvents(t *testing.T, d llm.StreamDecoder) []llm.Event {
	t.Helper()
	var evs []llm.Event
	for {
		e, err := d.Next()
		if errors.Is(err, io.EOF) {
			return evs
		}
		if err != nil {
			t.Fatalf("stream decoder after %d events: %v", len(evs), err)
		}
		evs = append(evs, e)
		if len(evs) > 1000 {
			t.Fatal("stream decoder does not end")
		}
	}
}

// viewOf checks the canonical grammar of evs (message_start first, every
// delta inside its started block, every block stopped before the one
// message_delta, done last) and returns what they say.
func viewOf(t *testing.T, evs []llm.Event) streamView {
	t.Helper()
	var v streamView
	if len(evs) == 0 || evs[0].Type != llm.EventMessageStart {
		t.Fatalf("stream does not begin with message_start: %v", types(evs))
	}
	if last := evs[len(evs)-1]; last.Type != llm.EventDone {
		t.Fatalf("stream does not end with done: %v", types(evs))
	}
	v.Model = evs[0].Model
	open := map[int]*llm.Part{}
	args := map[int]*strings.Builder{}
	deltas := 0
	for i, e := range evs {
		switch e.Type {
		case llm.EventBlockStart:
			if open[e.Index] != nil || e.Block == nil {
				t.Fatalf("event %d: bad block_start %d: %v", i, e.Index, types(evs))
			}
			open[e.Index] = e.Block
			args[e.Index] = &strings.Builder{}
			v.Blocks = append(v.Blocks, string(e.Block.Type))
		case llm.EventTextDelta, llm.EventToolDelta, llm.EventThinkDelta:
			b := open[e.Index]
			if b == nil {
				t.Fatalf("event %d: %s outside an open block %d", i, e.Type, e.Index)
			}
			switch {
			case e.Type == llm.EventTextDelta && b.Type == llm.PartText:
				v.Text += e.Text
			case e.Type == llm.EventToolDelta && b.Type == llm.PartToolCall:
				args[e.Index].WriteString(e.Text)
			default:
				t.Fatalf("event %d: %s in a %s block", i, e.Type, b.Type)
			}
		case llm.EventBlockStop:
			if open[e.Index] == nil {
				t.Fatalf("event %d: block_stop of a block not open (%d)", i, e.Index)
			}
			open[e.Index] = nil
		case llm.EventMessageDelta:
			deltas++
			for idx, b := range open {
				if b != nil {
					t.Fatalf("event %d: message_delta while block %d is open", i, idx)
				}
			}
			v.Stop = e.StopReason
			if e.Usage == nil {
				t.Fatalf("event %d: message_delta without usage", i)
			}
			v.Usage = *e.Usage
		case llm.EventError:
			t.Fatalf("event %d: error %s: %s", i, e.ErrCode, e.ErrMessage)
		}
	}
	if deltas != 1 {
		t.Fatalf("%d message_delta events, want 1: %v", deltas, types(evs))
	}
	for _, e := range evs {
		if e.Type == llm.EventBlockStart && e.Block.Type == llm.PartToolCall {
			v.Calls = append(v.Calls, fmt.Sprintf("call %s %s %s", e.Block.ID, e.Block.Name, normJSON(args[e.Index].String())))
		}
	}
	return v
}

// types lists the event types of evs, for failure messages.
func types(evs []llm.Event) []llm.EventType {
	out := make([]llm.EventType, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

// streamEncoder returns the encoder a caller of format f gets. A Chat caller
// is taken to have asked for stream_options.include_usage, as the official
// SDKs and coding agents do; without it the format has no usage to check.
func streamEncoder(f llm.Format, w io.Writer) llm.StreamEncoder {
	c := newCodec(f)
	if chat, ok := c.(*openaichat.Codec); ok {
		return chat.NewUsageStreamEncoder(w, true)
	}
	return c.NewStreamEncoder(w)
}

// TestStreamFixtures checks each upstream stream fixture's canonical reading.
func TestStreamFixtures(t *testing.T) {
	for _, f := range llm.Formats {
		t.Run(string(f), func(t *testing.T) {
			body := readFixture(t, "stream", f, ".sse")
			got := viewOf(t, readEvents(t, newCodec(f).NewStreamDecoder(bytes.NewReader(body))))
			want := wantStream(f, f)
			want.Usage = sourceUsage[f]
			if !reflect.DeepEqual(got, want) {
				t.Errorf("stream:\n got %#v\nwant %#v", got, want)
			}
		})
	}
}

// TestStreamMatrix decodes each upstream stream of B, re-encodes every event
// for a caller of A, pins the SSE by golden and reads it back with A.
func TestStreamMatrix(t *testing.T) {
	for _, p := range pairs() {
		name := string(p.up) + "__" + string(p.in)
		t.Run(name, func(t *testing.T) {
			src := readEvents(t, newCodec(p.up).NewStreamDecoder(bytes.NewReader(readFixture(t, "stream", p.up, ".sse"))))
			var out bytes.Buffer
			enc := streamEncoder(p.in, &out)
			for _, e := range src {
				if err := enc.Encode(e); err != nil {
					t.Fatalf("encode %s for a %s caller: %v", e.Type, p.in, err)
				}
			}
			checkGolden(t, "stream/"+name+".sse", out.Bytes())

			got := viewOf(t, readEvents(t, newCodec(p.in).NewStreamDecoder(bytes.NewReader(out.Bytes()))))
			if want := wantStream(p.up, p.in); !reflect.DeepEqual(got, want) {
				t.Errorf("after %s -> %s -> decode:\n got %#v\nwant %#v", p.up, p.in, got, want)
			}
		})
	}
}
