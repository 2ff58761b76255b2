package openaichat

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/internal/wirejson"
)

// checkEncodeMatchesOld fails t when StreamEncoder writes evs otherwise
// than oldStreamEncoder does, event by event: the same bytes in each
// Write, the same errors.
func checkEncodeMatchesOld(t *testing.T, includeUsage bool, evs []llm.Event) {
	t.Helper()
	var newOut, oldOut bytes.Buffer
	enc := testCodec().NewUsageStreamEncoder(&newOut, includeUsage)
	old := &oldStreamEncoder{c: testCodec(), w: &oldOut, IncludeUsage: includeUsage}
	for i, e := range evs {
		newErr, oldErr := enc.Encode(e), old.Encode(e)
		if fmt.Sprint(newErr) != fmt.Sprint(oldErr) {
			t.Fatalf("event %d %+v: Encode = %v, the old encoder's %v", i, e, newErr, oldErr)
		}
		if !bytes.Equal(newOut.Bytes(), oldOut.Bytes()) {
			t.Fatalf("event %d %+v (include usage %v) writes\n%s\nthe old encoder writes\n%s", i, e, includeUsage, newOut.Bytes(), oldOut.Bytes())
		}
		newOut.Reset()
		oldOut.Reset()
	}
}

func TestStreamEncodeMatchesOld(t *testing.T) {
	u := func(u llm.Usage) *llm.Usage { return &u }
	streams := map[string][]llm.Event{
		"bench": benchEvents(t),
		"tools and escapes": {
			{Type: llm.EventMessageStart, ID: "id \"q\" \\ <&>\u2028", Model: "m\x00\b\f\xff"},
			{Type: llm.EventBlockStart, Index: 0, Block: &llm.Part{Type: llm.PartThinking}},
			{Type: llm.EventThinkDelta, Index: 0, Text: "dropped"},
			{Type: llm.EventBlockStart, Index: 1, Block: &llm.Part{Type: llm.PartText}},
			{Type: llm.EventTextDelta, Index: 1, Text: "a\tb\nc\r\u2029 \"\\ 世界 \xed\xa0\x80"},
			{Type: llm.EventTextDelta, Index: 1, Text: ""},
			{Type: llm.EventBlockStart, Index: 2, Block: &llm.Part{Type: llm.PartToolCall, ID: "toolu_1", Name: "read <file>"}},
			{Type: llm.EventToolDelta, Index: 2, Text: `{"path":"a\n.go"}`},
			{Type: llm.EventToolDelta, Index: 9, Text: "no such block"},
			{Type: llm.EventBlockStart, Index: 3, Block: &llm.Part{Type: llm.PartToolCall}},
			{Type: llm.EventBlockStart, Index: 4, Block: nil},
			{Type: llm.EventMessageDelta, StopReason: llm.StopToolUse, Usage: u(llm.Usage{Input: -3, CacheRead: 1 << 40, Output: 7, Reasoning: 2})},
			{Type: llm.EventMessageDelta, StopReason: llm.StopEnd},
			{Type: llm.EventDone},
		},
		"no start": {
			{Type: llm.EventToolDelta, Index: 0, Text: "x"},
			{Type: llm.EventMessageDelta, StopReason: llm.StopMaxTokens},
			{Type: llm.EventDone},
		},
		"done only": {{Type: llm.EventDone}},
		"error":     {{Type: llm.EventTextDelta, Text: "par"}, {Type: llm.EventError, ErrCode: "overloaded_error", ErrMessage: "Overloaded"}},
	}
	for name, evs := range streams {
		for _, includeUsage := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s usage %v", name, includeUsage), func(t *testing.T) {
				checkEncodeMatchesOld(t, includeUsage, evs)
			})
		}
	}
}

// TestStreamEncodeGeneratedIDs checks ids a NewID makes, an empty one
// included (the old encoder omitted an empty tool call id).
func TestStreamEncodeGeneratedIDs(t *testing.T) {
	for _, id := range []string{"", "gen\"1"} {
		c := &Codec{NewID: func(string) string { return id }, Now: testCodec().Now}
		var newOut, oldOut bytes.Buffer
		enc := c.NewStreamEncoder(&newOut)
		old := &oldStreamEncoder{c: c, w: &oldOut}
		for _, e := range []llm.Event{
			{Type: llm.EventBlockStart, Index: 0, Block: &llm.Part{Type: llm.PartToolCall, Name: "f"}},
			{Type: llm.EventDone},
		} {
			if err := enc.Encode(e); err != nil {
				t.Fatal(err)
			}
			if err := old.Encode(e); err != nil {
				t.Fatal(err)
			}
		}
		if newOut.String() != oldOut.String() {
			t.Errorf("NewID %q: writes\n%s\nthe old encoder writes\n%s", id, newOut.String(), oldOut.String())
		}
	}
}

// TestAppendUsage compares appendUsage with encoding/json on the shapes
// usageToWire does not make.
func TestAppendUsage(t *testing.T) {
	seven := 7
	for _, u := range []wireUsage{
		{},
		{PromptTokens: 1, CompletionTokens: -2, TotalTokens: 3},
		{PromptCacheHitTokens: &seven},
		{PromptTokensDetails: &promptDetails{CachedTokens: 4, AudioTokens: 5}},
		{CompletionTokensDetails: &completionDetails{ReasoningTokens: 1, AudioTokens: 2, AcceptedPredictionTokens: 3, RejectedPredictionTokens: 4}},
		usageToWire(llm.Usage{Input: 1, CacheRead: 2, CacheWrite: 3, Output: 4, Reasoning: 5}),
	} {
		want, err := wirejson.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendUsage(nil, u); string(got) != string(want) {
			t.Errorf("appendUsage = %s, encoding/json writes %s", got, want)
		}
	}
}

// FuzzStreamEncodeChunk compares StreamEncoder with the old encoder on
// event sequences ops spells out (one event a byte) over arbitrary ids,
// names and texts ("|" separates the texts).
func FuzzStreamEncodeChunk(f *testing.F) {
	f.Add(false, "chatcmpl-1", "gpt-4.1", "read", "Hello|, <world> & \"you\"|\n", []byte{0, 9, 3, 3, 2, 12, 12, 5, 6})
	f.Add(true, "", "", "", "", []byte{3, 4, 6})
	f.Add(true, "id\u2028", "m\xff", "n\x00", "a\bb\fc\\|\xed\xa0\x80|", []byte{2, 10, 18, 4, 12, 20, 13, 7, 5, 6})
	stops := []llm.StopReason{"", llm.StopEnd, llm.StopMaxTokens, llm.StopToolUse, llm.StopRefusal, "other"}
	f.Fuzz(func(t *testing.T, includeUsage bool, id, model, name, texts string, ops []byte) {
		pieces := strings.Split(texts, "|")
		var evs []llm.Event
		for i, op := range ops {
			text, index := pieces[i%len(pieces)], int(op>>3)%4
			var e llm.Event
			switch op % 8 {
			case 0:
				e = llm.Event{Type: llm.EventMessageStart, ID: id, Model: model}
			case 1:
				e = llm.Event{Type: llm.EventBlockStart, Index: index, Block: &llm.Part{Type: llm.PartText}}
			case 2:
				callID := ""
				if op&0x40 != 0 {
					callID = text
				}
				e = llm.Event{Type: llm.EventBlockStart, Index: index, Block: &llm.Part{Type: llm.PartToolCall, ID: callID, Name: name}}
			case 3:
				e = llm.Event{Type: llm.EventTextDelta, Index: index, Text: text}
			case 4:
				e = llm.Event{Type: llm.EventToolDelta, Index: index, Text: text}
			case 5:
				n := int(int8(op)) * 1000
				e = llm.Event{Type: llm.EventMessageDelta, StopReason: stops[int(op>>3)%len(stops)],
					Usage: &llm.Usage{Input: n, CacheRead: i, CacheWrite: -i, Output: n / 3, Reasoning: len(text)}}
			case 6:
				e = llm.Event{Type: llm.EventDone}
			case 7:
				e = llm.Event{Type: llm.EventError, ErrCode: name, ErrMessage: text}
			}
			evs = append(evs, e)
		}
		checkEncodeMatchesOld(t, includeUsage, evs)
	})
}
