package responses

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/internal/golden"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/sse"
)

// streamCases are canonical event sequences, as decoders of other formats
// produce them, that the encoder must render as an acceptable stream.
var streamCases = []struct {
	name   string
	events []llm.Event
}{
	{"anthropic_tool_use", []llm.Event{
		{Type: llm.EventMessageStart, ID: "msg_01", Model: "claude-sonnet-4-5", Usage: &llm.Usage{Input: 100, CacheRead: 50}},
		{Type: llm.EventBlockStart, Index: 0, Block: &llm.Part{Type: llm.PartThinking, Family: "anthropic"}},
		{Type: llm.EventThinkDelta, Index: 0, Text: "The user wants files."},
		{Type: llm.EventThinkDelta, Index: 0, Signature: "EqQBCkYIBxgC"},
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
		{Type: llm.EventMessageDelta, StopReason: llm.StopToolUse, Usage: &llm.Usage{Output: 30}},
		{Type: llm.EventDone},
	}},
	{"openai_reasoning_merged", []llm.Event{
		{Type: llm.EventMessageStart, ID: "resp_abc", Model: "o3"},
		{Type: llm.EventBlockStart, Index: 0, Block: &llm.Part{Type: llm.PartThinking, ID: "rs_1", Family: "openai"}},
		{Type: llm.EventThinkDelta, Index: 0, Text: "Plan."},
		{Type: llm.EventBlockStop, Index: 0},
		{Type: llm.EventBlockStart, Index: 1, Block: &llm.Part{Type: llm.PartRedactedThinking, ID: "rs_1", Data: "enc-1", Family: "openai"}},
		{Type: llm.EventBlockStop, Index: 1},
		{Type: llm.EventBlockStart, Index: 2, Block: &llm.Part{Type: llm.PartText}},
		{Type: llm.EventTextDelta, Index: 2, Text: "Done."},
		{Type: llm.EventBlockStop, Index: 2},
		{Type: llm.EventMessageDelta, StopReason: llm.StopEnd, Usage: &llm.Usage{Input: 5, Output: 9, Reasoning: 4}},
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
		{Type: llm.EventMessageStart, ID: "x", Model: "gemini-2.5-pro"},
		{Type: llm.EventBlockStart, Index: 0, Block: &llm.Part{Type: llm.PartText}},
		{Type: llm.EventTextDelta, Index: 0, Text: "Hal"},
		{Type: llm.EventError, ErrMessage: "upstream overloaded", ErrCode: "overloaded"},
		{Type: llm.EventTextDelta, Index: 0, Text: "ignored"},
	}},
	{"lenient_no_starts", []llm.Event{
		{Type: llm.EventTextDelta, Index: 0, Text: "hi"},
		{Type: llm.EventToolDelta, Index: 1, Text: ""},
		{Type: llm.EventBlockStart, Index: 2, Block: &llm.Part{Type: llm.PartImage, URL: "https://x"}},
		{Type: llm.EventBlockStart, Index: 3, Block: &llm.Part{Type: llm.PartRedactedThinking, Data: "x", Family: "anthropic"}},
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

// TestStreamEncodeGolden renders each case, checks it against its golden
// file and against the rules a Responses client relies on.
func TestStreamEncodeGolden(t *testing.T) {
	for _, tc := range streamCases {
		t.Run(tc.name, func(t *testing.T) {
			out := encodeEvents(t, tc.events)
			golden.Check(t, "testdata/encode/stream_"+tc.name+".sse.golden", out)
			if err := validateStream(out); err != nil {
				t.Errorf("invalid Responses stream: %v\n%s", err, out)
			}
		})
	}
}

// TestStreamEncodeRoundTrip decodes the encoded streams and checks that the
// content, stop reason and usage survive.
func TestStreamEncodeRoundTrip(t *testing.T) {
	tests := []struct {
		name   string
		blocks []string
		stop   llm.StopReason
		usage  llm.Usage
		err    string
	}{
		{"anthropic_tool_use", []string{"thinking:The user wants files.", "text:Listing files.", `tool_call:toolu_01/shell:{"command":["ls"]}`}, llm.StopToolUse, llm.Usage{Input: 100, CacheRead: 50, Output: 30}, ""},
		{"openai_reasoning_merged", []string{"thinking:Plan.", "redacted_thinking:enc-1", "text:Done."}, llm.StopEnd, llm.Usage{Input: 5, Output: 9, Reasoning: 4}, ""},
		{"max_tokens", []string{"text:The answer is"}, llm.StopMaxTokens, llm.Usage{Input: 3, Output: 4}, ""},
		{"error_mid_stream", []string{"text:Hal"}, "", llm.Usage{}, "upstream overloaded"},
		{"lenient_no_starts", []string{"text:hi", "tool_call:call_heddle_1/:{}"}, llm.StopToolUse, llm.Usage{}, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
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
			switch e.Block.Type {
			case llm.PartToolCall:
				s += e.Block.ID + "/" + e.Block.Name + ":"
			case llm.PartRedactedThinking:
				s += e.Block.Data
			}
			blocks = append(blocks, s)
		case llm.EventTextDelta, llm.EventToolDelta, llm.EventThinkDelta:
			blocks[byIndex[e.Index]] += e.Text
		case llm.EventMessageDelta:
			stop = e.StopReason
			if e.Usage != nil {
				usage = *e.Usage
			}
		case llm.EventError:
			errMsg = e.ErrMessage
		}
	}
	return blocks, stop, usage, errMsg
}

// validateStream checks the rules Codex and the SDKs rely on: event names
// match types, sequence numbers count up from 0, response.created comes
// first, an item is added before its deltas and done once, done events carry
// the full text, and one terminal event comes last listing every item.
func validateStream(out []byte) error {
	r := sse.NewReader(bytes.NewReader(out))
	type item struct {
		id, text string
		done     bool
	}
	items := map[int]*item{}
	var doneItems []json.RawMessage
	terminal := false
	for seq := 0; ; seq++ {
		f, err := r.Next()
		if errors.Is(err, io.EOF) {
			if !terminal {
				return errors.New("no terminal event")
			}
			return nil
		}
		if err != nil {
			return err
		}
		if terminal {
			return errors.New("an event follows the terminal event")
		}
		var ev struct {
			Type           string
			SequenceNumber *int            `json:"sequence_number"`
			OutputIndex    *int            `json:"output_index"`
			ItemID         string          `json:"item_id"`
			Item           json.RawMessage `json:"item"`
			Delta, Text    string
			Arguments      string
			Response       *struct {
				ID, Status string
				Output     []json.RawMessage
			}
		}
		if err := json.Unmarshal(f.Data, &ev); err != nil {
			return err
		}
		if ev.Type != f.Event || ev.SequenceNumber == nil || *ev.SequenceNumber != seq {
			return fmt.Errorf("frame %d: event %q type %q sequence %v", seq, f.Event, ev.Type, ev.SequenceNumber)
		}
		if seq == 0 && ev.Type != "response.created" {
			return fmt.Errorf("first event is %s", ev.Type)
		}
		if ev.Response != nil && !strings.HasPrefix(ev.Response.ID, "resp_") {
			return fmt.Errorf("response id %q", ev.Response.ID)
		}
		var it *item
		if ev.OutputIndex != nil {
			it = items[*ev.OutputIndex]
		}
		switch ev.Type {
		case "response.output_item.added":
			if it != nil {
				return fmt.Errorf("output %d added twice", *ev.OutputIndex)
			}
			var head struct{ ID string }
			_ = json.Unmarshal(ev.Item, &head)
			items[*ev.OutputIndex] = &item{id: head.ID}
		case "response.output_text.delta", "response.function_call_arguments.delta", "response.reasoning_summary_text.delta":
			if it == nil || it.done || it.id != ev.ItemID {
				return fmt.Errorf("%s for an item not open", ev.Type)
			}
			it.text += ev.Delta
		case "response.output_text.done", "response.reasoning_summary_text.done":
			if it == nil || ev.Text != it.text {
				return fmt.Errorf("%s text %q, deltas gave %q", ev.Type, ev.Text, it.text)
			}
		case "response.function_call_arguments.done":
			if it == nil || (it.text == "" && ev.Arguments != "{}") || (it.text != "" && ev.Arguments != it.text) {
				return fmt.Errorf("arguments done %q, deltas gave %q", ev.Arguments, it.text)
			}
		case "response.output_item.done":
			if it == nil || it.done {
				return fmt.Errorf("output_item.done for an item not open")
			}
			it.done = true
			doneItems = append(doneItems, ev.Item)
		case "response.completed", "response.incomplete", "response.failed":
			terminal = true
			if len(ev.Response.Output) != len(doneItems) {
				return fmt.Errorf("terminal response lists %d items, %d were done", len(ev.Response.Output), len(doneItems))
			}
			for i := range doneItems {
				if !bytes.Equal(ev.Response.Output[i], doneItems[i]) {
					return fmt.Errorf("terminal item %d differs from its output_item.done", i)
				}
			}
		}
	}
}
