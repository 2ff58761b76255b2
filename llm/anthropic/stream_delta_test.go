package anthropic

import (
	"bytes"
	"io"
	"testing"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
	"github.com/heddle-gw/heddle/llm/sse"
)

// The deltas as the encoder marshalled them before it appended them by
// hand: the reference its frames must equal byte for byte.
type (
	oldTextDelta struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	oldJSONDelta struct {
		Type        string `json:"type"`
		PartialJSON string `json:"partial_json"`
	}
	oldThinkingDelta struct {
		Type     string `json:"type"`
		Thinking string `json:"thinking"`
	}
)

// oldDeltaFrame is the content_block_delta frame the encoder wrote with
// encoding/json for a delta of kind at wire index.
func oldDeltaFrame(t *testing.T, kind llm.EventType, index int, text, signature string) []byte {
	t.Helper()
	var deltas []any
	switch kind {
	case llm.EventTextDelta:
		deltas = append(deltas, oldTextDelta{Type: "text_delta", Text: text})
	case llm.EventToolDelta:
		deltas = append(deltas, oldJSONDelta{Type: "input_json_delta", PartialJSON: text})
	case llm.EventThinkDelta:
		if text != "" {
			deltas = append(deltas, oldThinkingDelta{Type: "thinking_delta", Thinking: text})
		}
		if signature != "" {
			deltas = append(deltas, signatureDelta{Type: "signature_delta", Signature: signature})
		}
	}
	var out []byte
	for _, d := range deltas {
		data, err := wirejson.Marshal(blockDeltaEvent{Type: "content_block_delta", Index: index, Delta: d})
		if err != nil {
			t.Fatal(err)
		}
		out = sse.AppendFrame(out, "content_block_delta", data)
	}
	return out
}

// checkDeltaFrame fails t when the encoder writes a delta of kind, in the
// block after `before` others, otherwise than oldDeltaFrame.
func checkDeltaFrame(t *testing.T, kind llm.EventType, before int, text, signature string) {
	t.Helper()
	part := map[llm.EventType]llm.PartType{
		llm.EventTextDelta: llm.PartText, llm.EventToolDelta: llm.PartToolCall, llm.EventThinkDelta: llm.PartThinking,
	}[kind]
	var out bytes.Buffer
	enc := testCodec().NewStreamEncoder(&out)
	for i := range before {
		if err := enc.Encode(llm.Event{Type: llm.EventBlockStart, Index: i, Block: &llm.Part{Type: llm.PartText}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Encode(llm.Event{Type: llm.EventBlockStart, Index: before, Block: &llm.Part{Type: part, Family: "anthropic"}}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := enc.Encode(llm.Event{Type: kind, Index: before, Text: text, Signature: signature}); err != nil {
		t.Fatal(err)
	}
	if want := oldDeltaFrame(t, kind, before, text, signature); !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("%s %q at %d writes\n%q\nencoding/json wrote\n%q", kind, text, before, out.Bytes(), want)
	}
}

func TestStreamEncodeDeltaFrames(t *testing.T) {
	texts := []string{"", "Hello", ` <b> & "quoted" \ `, "tab\tnl\ncr\r\b\f\x00\x1f", "世界 😀 \u2028\u2029", "bad \xff \xed\xa0\x80", `{"path":"a.go"}`}
	for _, kind := range []llm.EventType{llm.EventTextDelta, llm.EventToolDelta, llm.EventThinkDelta} {
		for _, text := range texts {
			for _, before := range []int{0, 1, 12} {
				checkDeltaFrame(t, kind, before, text, "")
			}
		}
	}
	checkDeltaFrame(t, llm.EventThinkDelta, 2, "thought", "sig+/=")
	checkDeltaFrame(t, llm.EventThinkDelta, 0, "", "sig")
}

// FuzzStreamEncodeDelta compares the hand-written delta frames with the
// encoding/json ones on arbitrary texts, kinds and block numbers.
func FuzzStreamEncodeDelta(f *testing.F) {
	f.Add("Hello <b> & \"you\"\n", uint8(0), uint8(0), "")
	f.Add(`{"a":[1,"\u00e9"]}`, uint8(1), uint8(3), "")
	f.Add("think \xff\b\f", uint8(2), uint8(1), "sig")
	f.Fuzz(func(t *testing.T, text string, kind, before uint8, signature string) {
		kinds := []llm.EventType{llm.EventTextDelta, llm.EventToolDelta, llm.EventThinkDelta}
		checkDeltaFrame(t, kinds[int(kind)%len(kinds)], int(before%16), text, signature)
	})
}

// benchEvents is a Claude-style answer: thinking, text, a tool call.
func benchEvents() []llm.Event {
	evs := []llm.Event{
		{Type: llm.EventMessageStart, ID: "msg_01XFDUDYJgAACzvnptvVoYEL", Model: "claude-sonnet-4-5", Usage: &llm.Usage{Input: 472, CacheRead: 2048}},
		{Type: llm.EventBlockStart, Index: 0, Block: &llm.Part{Type: llm.PartThinking, Family: "anthropic"}},
	}
	for range 10 {
		evs = append(evs, llm.Event{Type: llm.EventThinkDelta, Index: 0, Text: "The user wants the weather; "})
	}
	evs = append(evs, llm.Event{Type: llm.EventThinkDelta, Index: 0, Signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"},
		llm.Event{Type: llm.EventBlockStop, Index: 0},
		llm.Event{Type: llm.EventBlockStart, Index: 1, Block: &llm.Part{Type: llm.PartText}})
	for i := range 40 {
		text := " word"
		if i%10 == 9 {
			text = " \"quoted\" <tag> & a line\n"
		}
		evs = append(evs, llm.Event{Type: llm.EventTextDelta, Index: 1, Text: text})
	}
	evs = append(evs, llm.Event{Type: llm.EventBlockStop, Index: 1},
		llm.Event{Type: llm.EventBlockStart, Index: 2, Block: &llm.Part{Type: llm.PartToolCall, ID: "toolu_01", Name: "get_weather"}})
	for _, piece := range []string{`{"loc`, `ation": "San`, ` Francisco,`, ` CA"`, `, "unit": "fah`, `renheit"}`} {
		evs = append(evs, llm.Event{Type: llm.EventToolDelta, Index: 2, Text: piece})
	}
	return append(evs, llm.Event{Type: llm.EventBlockStop, Index: 2},
		llm.Event{Type: llm.EventMessageDelta, StopReason: llm.StopToolUse, Usage: &llm.Usage{Input: 472, CacheRead: 2048, Output: 89}},
		llm.Event{Type: llm.EventDone})
}

func BenchmarkStreamEncode(b *testing.B) {
	evs := benchEvents()
	c := New()
	b.ReportAllocs()
	for b.Loop() {
		enc := c.NewStreamEncoder(io.Discard)
		for _, e := range evs {
			if err := enc.Encode(e); err != nil {
				b.Fatal(err)
			}
		}
	}
}
