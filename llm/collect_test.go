package llm

import (
	"reflect"
	"testing"
)

func TestCollector(t *testing.T) {
	u := Usage{Input: 12, Output: 7, CacheRead: 3}
	tests := []struct {
		name     string
		events   []Event
		want     *Response
		complete bool
	}{
		{
			name: "text then tool call",
			events: []Event{
				{Type: EventMessageStart, ID: "msg_1", Model: "m"},
				{Type: EventBlockStart, Index: 0, Block: &Part{Type: PartText}},
				{Type: EventTextDelta, Index: 0, Text: "Let me "},
				{Type: EventTextDelta, Index: 0, Text: "check."},
				{Type: EventBlockStop, Index: 0},
				{Type: EventBlockStart, Index: 1, Block: &Part{Type: PartToolCall, ID: "call_1", Name: "ls"}},
				{Type: EventToolDelta, Index: 1, Text: `{"path":`},
				{Type: EventToolDelta, Index: 1, Text: `"."}`},
				{Type: EventBlockStop, Index: 1},
				{Type: EventMessageDelta, StopReason: StopToolUse, Usage: &u},
				{Type: EventDone},
			},
			want: &Response{ID: "msg_1", Model: "m", StopReason: StopToolUse, Usage: u, Content: []Part{
				{Type: PartText, Text: "Let me check."},
				{Type: PartToolCall, ID: "call_1", Name: "ls", Arguments: `{"path":"."}`},
			}},
			complete: true,
		},
		{
			name: "thinking with signature",
			events: []Event{
				{Type: EventBlockStart, Index: 0, Block: &Part{Type: PartThinking, Family: "anthropic"}},
				{Type: EventThinkDelta, Index: 0, Text: "hmm"},
				{Type: EventThinkDelta, Index: 0, Signature: "sig"},
				{Type: EventMessageDelta, StopReason: StopEnd},
			},
			want:     &Response{StopReason: StopEnd, Content: []Part{{Type: PartThinking, Family: "anthropic", Text: "hmm", Signature: "sig"}}},
			complete: true,
		},
		{
			name: "error ends incomplete",
			events: []Event{
				{Type: EventBlockStart, Index: 0, Block: &Part{Type: PartText}},
				{Type: EventTextDelta, Index: 0, Text: "partial"},
				{Type: EventError, ErrMessage: "cut"},
			},
			want:     &Response{Content: []Part{{Type: PartText, Text: "partial"}}},
			complete: false,
		},
		{
			name:     "no stop reason is incomplete",
			events:   []Event{{Type: EventTextDelta, Index: 0, Text: "x"}},
			want:     &Response{Content: []Part{{Type: PartText, Text: "x"}}},
			complete: false,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Collector
			for _, e := range tt.events {
				c.Add(e)
			}
			got, complete := c.Response()
			if complete != tt.complete || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v complete=%v\nwant %+v complete=%v", got, complete, tt.want, tt.complete)
			}
		})
	}
}
