package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/heddle-gw/heddle/internal/golden"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/sse"
)

// streamCases are canonical event sequences, as other formats' decoders
// produce them, that the encoder must render as a Gemini stream.
var streamCases = []struct {
	name   string
	events []llm.Event
}{
	{"anthropic_tool_use", []llm.Event{
		{Type: llm.EventMessageStart, ID: "msg_01", Model: "claude-sonnet-4-5", Usage: &llm.Usage{Input: 100, CacheRead: 50}},
		{Type: llm.EventBlockStart, Index: 0, Block: &llm.Part{Type: llm.PartThinking, Family: "anthropic"}},
		{Type: llm.EventThinkDelta, Index: 0, Text: "Plan it."},
		{Type: llm.EventThinkDelta, Index: 0, Signature: "anthropic-signature"},
		{Type: llm.EventBlockStop, Index: 0},
		{Type: llm.EventBlockStart, Index: 1, Block: &llm.Part{Type: llm.PartText}},
		{Type: llm.EventTextDelta, Index: 1, Text: "Listing "},
		{Type: llm.EventTextDelta, Index: 1, Text: "files."},
		{Type: llm.EventBlockStop, Index: 1},
		{Type: llm.EventPing},
		{Type: llm.EventBlockStart, Index: 2, Block: &llm.Part{Type: llm.PartToolCall, ID: "toolu_01", Name: "shell"}},
		{Type: llm.EventToolDelta, Index: 2, Text: `{"command":`},
		{Type: llm.EventToolDelta, Index: 2, Text: `["ls"]}`},
		{Type: llm.EventBlockStop, Index: 2},
		{Type: llm.EventMessageDelta, StopReason: llm.StopToolUse, Usage: &llm.Usage{Output: 30, Reasoning: 10}},
		{Type: llm.EventDone},
	}},
	{"google_signatures", []llm.Event{
		{Type: llm.EventMessageStart, ID: "r1", Model: "gemini-2.5-pro"},
		{Type: llm.EventBlockStart, Index: 0, Block: &llm.Part{Type: llm.PartThinking, Family: "google"}},
		{Type: llm.EventThinkDelta, Index: 0, Text: "Thinking."},
		{Type: llm.EventThinkDelta, Index: 0, Signature: "g-sig-1"},
		{Type: llm.EventBlockStop, Index: 0},
		{Type: llm.EventBlockStart, Index: 1, Block: &llm.Part{Type: llm.PartToolCall, ID: "call_r1_1", Name: "f", Signature: "g-sig-2", Family: "google"}},
		{Type: llm.EventToolDelta, Index: 1, Text: `{}`},
		{Type: llm.EventBlockStop, Index: 1},
		{Type: llm.EventMessageDelta, StopReason: llm.StopToolUse},
		{Type: llm.EventDone},
	}},
	{"max_tokens", []llm.Event{
		{Type: llm.EventMessageStart, ID: "chatcmpl-1", Model: "gpt-4o"},
		{Type: llm.EventBlockStart, Index: 0, Block: &llm.Part{Type: llm.PartText}},
		{Type: llm.EventTextDelta, Index: 0, Text: "The answer is"},
		{Type: llm.EventBlockStop, Index: 0},
		{Type: llm.EventMessageDelta, StopReason: llm.StopMaxTokens, Usage: &llm.Usage{Input: 3, Output: 4}},
		{Type: llm.EventDone},
	}},
	{"error_mid_stream", []llm.Event{
		{Type: llm.EventMessageStart, ID: "x", Model: "gpt-4o"},
		{Type: llm.EventBlockStart, Index: 0, Block: &llm.Part{Type: llm.PartText}},
		{Type: llm.EventTextDelta, Index: 0, Text: "Hal"},
		{Type: llm.EventError, ErrMessage: "upstream overloaded", ErrCode: "overloaded_error"},
		{Type: llm.EventTextDelta, Index: 0, Text: "ignored"},
	}},
	{"open_calls_at_done", []llm.Event{
		{Type: llm.EventToolDelta, Index: 1, Text: `{"b":2}`},
		{Type: llm.EventBlockStart, Index: 0, Block: &llm.Part{Type: llm.PartToolCall, ID: "c0", Name: "a"}},
		{Type: llm.EventToolDelta, Index: 0, Text: `not json`},
		{Type: llm.EventDone},
	}},
}

func encodeEvents(t *testing.T, events []llm.Event) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := New().NewStreamEncoder(&buf)
	for _, e := range events {
		if err := enc.Encode(e); err != nil {
			t.Fatalf("Encode(%s): %v", e.Type, err)
		}
	}
	return buf.Bytes()
}

// TestStreamEncodeGolden renders each case against its golden file and the
// rules a Gemini client relies on.
func TestStreamEncodeGolden(t *testing.T) {
	for _, tc := range streamCases {
		t.Run(tc.name, func(t *testing.T) {
			out := encodeEvents(t, tc.events)
			golden.Check(t, "testdata/encode/stream_"+tc.name+".sse.golden", out)
			if err := validateStream(out); err != nil {
				t.Errorf("invalid Gemini stream: %v\n%s", err, out)
			}
		})
	}
}

// TestStreamEncodeRoundTrip decodes the encoded streams again.
func TestStreamEncodeRoundTrip(t *testing.T) {
	tests := []struct {
		blocks []string
		stop   llm.StopReason
		usage  llm.Usage
		err    string
	}{
		{[]string{"thinking:Plan it.", "text:Listing files.", `tool_call:toolu_01/shell:{"command":["ls"]}`}, llm.StopToolUse, llm.Usage{Input: 100, CacheRead: 50, Output: 30, Reasoning: 10}, ""},
		{[]string{"thinking:Thinking.|g-sig-1", "tool_call:call_r1_1/f:{}|g-sig-2"}, llm.StopToolUse, llm.Usage{}, ""},
		{[]string{"text:The answer is"}, llm.StopMaxTokens, llm.Usage{Input: 3, Output: 4}, ""},
		{[]string{"text:Hal"}, "", llm.Usage{}, "upstream overloaded"},
		{[]string{"tool_call:c0/a:{}"}, llm.StopToolUse, llm.Usage{}, ""},
	}
	for i, tt := range tests {
		t.Run(streamCases[i].name, func(t *testing.T) {
			out := encodeEvents(t, streamCases[i].events)
			events, err := collect(New().NewStreamDecoder(bytes.NewReader(out)))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			blocks, stop, usage, errMsg := summarize(events)
			if !reflect.DeepEqual(blocks, tt.blocks) || stop != tt.stop || usage != tt.usage || errMsg != tt.err {
				t.Errorf("got blocks %q stop %q usage %+v err %q", blocks, stop, usage, errMsg)
			}
		})
	}
}

// summarize reduces a canonical stream to its blocks' kinds and contents.
func summarize(events []llm.Event) (blocks []string, stop llm.StopReason, usage llm.Usage, errMsg string) {
	byIndex := map[int]int{}
	for _, e := range events {
		switch e.Type {
		case llm.EventBlockStart:
			byIndex[e.Index] = len(blocks)
			s := string(e.Block.Type) + ":"
			if e.Block.Type == llm.PartToolCall {
				s += e.Block.ID + "/" + e.Block.Name + ":"
			}
			blocks = append(blocks, s)
		case llm.EventTextDelta, llm.EventToolDelta, llm.EventThinkDelta:
			blocks[byIndex[e.Index]] += e.Text
			if e.Signature != "" {
				blocks[byIndex[e.Index]] += "|" + e.Signature
			}
		case llm.EventBlockStop:
		case llm.EventMessageDelta:
			stop = e.StopReason
			if e.Usage != nil {
				usage = *e.Usage
			}
		case llm.EventError:
			errMsg = e.ErrMessage
		}
	}
	for i, e := range events {
		if e.Type == llm.EventBlockStart && e.Block.Signature != "" {
			blocks[byIndex[events[i].Index]] += "|" + e.Block.Signature
		}
	}
	return blocks, stop, usage, errMsg
}

// validateStream checks the rules Gemini clients rely on: every frame is a
// bare data frame holding one GenerateContentResponse (or an error, last);
// every candidate has content with parts; function calls have a name and
// object args; exactly the last chunk has a finishReason and usage.
func validateStream(out []byte) error {
	r := sse.NewReader(bytes.NewReader(out))
	var frames []sse.Frame
	for {
		f, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		frames = append(frames, f)
	}
	if len(frames) == 0 {
		return errors.New("empty stream")
	}
	for i, f := range frames {
		last := i == len(frames)-1
		if f.Event != "" {
			return fmt.Errorf("frame %d has an event name", i)
		}
		var chunk struct {
			Candidates []struct {
				Content *struct {
					Role  string
					Parts []struct {
						Text         *string
						FunctionCall *struct {
							Name string
							Args json.RawMessage
						}
					}
				}
				FinishReason string
			}
			UsageMetadata *struct{ TotalTokenCount *int }
			Error         *struct {
				Code    int
				Message string
				Status  string
			}
		}
		if err := json.Unmarshal(f.Data, &chunk); err != nil {
			return fmt.Errorf("frame %d: %v", i, err)
		}
		if chunk.Error != nil {
			if !last || chunk.Error.Code == 0 || chunk.Error.Status == "" || chunk.Error.Message == "" {
				return fmt.Errorf("frame %d: error chunk %+v", i, chunk.Error)
			}
			continue
		}
		if len(chunk.Candidates) != 1 || chunk.Candidates[0].Content == nil || chunk.Candidates[0].Content.Role != "model" || len(chunk.Candidates[0].Content.Parts) == 0 {
			return fmt.Errorf("frame %d: candidate without model content", i)
		}
		if (chunk.Candidates[0].FinishReason != "") != last || (chunk.UsageMetadata != nil) != last {
			return fmt.Errorf("frame %d: finishReason/usage must be on the last chunk only", i)
		}
		for _, p := range chunk.Candidates[0].Content.Parts {
			if fc := p.FunctionCall; fc != nil && (fc.Name == "" || len(fc.Args) == 0 || fc.Args[0] != '{') {
				return fmt.Errorf("frame %d: function call %+v", i, fc)
			}
			if p.FunctionCall == nil && p.Text == nil {
				return fmt.Errorf("frame %d: empty part", i)
			}
		}
	}
	return nil
}
