package conformance

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/llm"
)

// at returns the value at a dotted path ("choices.0.finish_reason") of a
// JSON body, nil when absent.
func at(t *testing.T, body []byte, path string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, body)
	}
	for _, key := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[key]
		case []any:
			i, err := strconv.Atoi(key)
			if err != nil || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// stopPaths names where each format puts its stop reason, and its detail.
var stopPaths = map[llm.Format][2]string{
	llm.FormatAnthropic: {"stop_reason", "stop_sequence"},
	llm.FormatChat:      {"choices.0.finish_reason", ""},
	llm.FormatResponses: {"status", "incomplete_details.reason"},
	llm.FormatGemini:    {"candidates.0.finishReason", ""},
}

// stopRow is how one canonical stop reason travels in one format: the wire
// value (and detail) a caller sees, and what reading it back gives.
type stopRow struct {
	wire, detail string
	back         llm.StopReason
}

// stopTable is the stop-reason mapping of each format, checked against the
// APIs' documented values. A format without a value for a reason sends its
// nearest one, and the reason comes back as that.
var stopTable = map[llm.Format]map[llm.StopReason]stopRow{
	llm.FormatAnthropic: {
		llm.StopEnd:       {"end_turn", "", llm.StopEnd},
		llm.StopMaxTokens: {"max_tokens", "", llm.StopMaxTokens},
		llm.StopSequence:  {"stop_sequence", "###", llm.StopSequence},
		llm.StopToolUse:   {"tool_use", "", llm.StopToolUse},
		llm.StopRefusal:   {"refusal", "", llm.StopRefusal},
		llm.StopError:     {"end_turn", "", llm.StopEnd},
	},
	llm.FormatChat: {
		llm.StopEnd:       {"stop", "", llm.StopEnd},
		llm.StopMaxTokens: {"length", "", llm.StopMaxTokens},
		llm.StopSequence:  {"stop", "", llm.StopEnd},
		llm.StopToolUse:   {"tool_calls", "", llm.StopToolUse},
		llm.StopRefusal:   {"content_filter", "", llm.StopRefusal},
		llm.StopError:     {"stop", "", llm.StopEnd},
	},
	llm.FormatResponses: {
		llm.StopEnd:       {"completed", "", llm.StopEnd},
		llm.StopMaxTokens: {"incomplete", "max_output_tokens", llm.StopMaxTokens},
		llm.StopSequence:  {"completed", "", llm.StopEnd},
		llm.StopToolUse:   {"completed", "", llm.StopToolUse},
		llm.StopRefusal:   {"incomplete", "content_filter", llm.StopRefusal},
		llm.StopError:     {"failed", "", llm.StopError},
	},
	llm.FormatGemini: {
		llm.StopEnd:       {"STOP", "", llm.StopEnd},
		llm.StopMaxTokens: {"MAX_TOKENS", "", llm.StopMaxTokens},
		llm.StopSequence:  {"STOP", "", llm.StopEnd},
		llm.StopToolUse:   {"STOP", "", llm.StopToolUse},
		llm.StopRefusal:   {"SAFETY", "", llm.StopRefusal},
		llm.StopError:     {"OTHER", "", llm.StopError},
	},
}

var allStops = []llm.StopReason{llm.StopEnd, llm.StopMaxTokens, llm.StopSequence, llm.StopToolUse, llm.StopRefusal, llm.StopError}

// answerWith is a response that stopped for stop (a tool-use answer holds a
// call: Responses and Gemini derive tool use from it).
func answerWith(stop llm.StopReason) *llm.Response {
	r := &llm.Response{ID: "resp_map", Model: "m", StopReason: stop, Content: []llm.Part{{Type: llm.PartText, Text: "x"}}}
	if stop == llm.StopSequence {
		r.StopSequence = "###"
	}
	if stop == llm.StopToolUse {
		r.Content = append(r.Content, llm.Part{Type: llm.PartToolCall, ID: "call_map", Name: "f", Arguments: `{}`})
	}
	return r
}

// TestStopReasonTable checks every format's stop-reason mapping for
// complete responses: the wire value a caller sees and the canonical reason
// read back from it.
func TestStopReasonTable(t *testing.T) {
	for _, f := range llm.Formats {
		for _, stop := range allStops {
			t.Run(string(f)+"/"+string(stop), func(t *testing.T) {
				row := stopTable[f][stop]
				body, err := newCodec(f).EncodeResponse(answerWith(stop))
				if err != nil {
					t.Fatal(err)
				}
				paths := stopPaths[f]
				if got := at(t, body, paths[0]); got != row.wire {
					t.Errorf("%s = %v, want %q", paths[0], got, row.wire)
				}
				if paths[1] != "" {
					got, _ := at(t, body, paths[1]).(string)
					if got != row.detail {
						t.Errorf("%s = %q, want %q", paths[1], got, row.detail)
					}
				}
				r, err := newCodec(f).DecodeResponse(body)
				if err != nil {
					t.Fatal(err)
				}
				if r.StopReason != row.back {
					t.Errorf("read back as %q, want %q", r.StopReason, row.back)
				}
			})
		}
	}
}

// TestStreamStopReasonTable checks the same mapping through each format's
// stream encoder and decoder. A Responses stream that stopped on an error
// ends with response.failed, which reads back as an error event.
func TestStreamStopReasonTable(t *testing.T) {
	for _, f := range llm.Formats {
		for _, stop := range allStops {
			t.Run(string(f)+"/"+string(stop), func(t *testing.T) {
				evs := []llm.Event{
					{Type: llm.EventMessageStart, ID: "resp_map", Model: "m"},
					{Type: llm.EventBlockStart, Index: 0, Block: &llm.Part{Type: llm.PartText}},
					{Type: llm.EventTextDelta, Index: 0, Text: "x"},
					{Type: llm.EventBlockStop, Index: 0},
				}
				if stop == llm.StopToolUse {
					evs = append(evs,
						llm.Event{Type: llm.EventBlockStart, Index: 1, Block: &llm.Part{Type: llm.PartToolCall, ID: "call_map", Name: "f"}},
						llm.Event{Type: llm.EventToolDelta, Index: 1, Text: `{}`},
						llm.Event{Type: llm.EventBlockStop, Index: 1})
				}
				u := llm.Usage{Input: 10, Output: 2}
				evs = append(evs, llm.Event{Type: llm.EventMessageDelta, StopReason: stop, Usage: &u}, llm.Event{Type: llm.EventDone})
				var out bytes.Buffer
				enc := streamEncoder(f, &out)
				for _, e := range evs {
					if err := enc.Encode(e); err != nil {
						t.Fatal(err)
					}
				}
				var got llm.StopReason
				for _, e := range readEvents(t, newCodec(f).NewStreamDecoder(&out)) {
					switch e.Type {
					case llm.EventMessageDelta:
						got = e.StopReason
					case llm.EventError:
						got = "error event"
					}
				}
				want := stopTable[f][stop].back
				if f == llm.FormatResponses && stop == llm.StopError {
					want = "error event"
				}
				if got != want {
					t.Errorf("read back as %q, want %q", got, want)
				}
			})
		}
	}
}

// TestUpstreamStopValues checks wire values no Heddle encoder writes but
// upstreams send.
func TestUpstreamStopValues(t *testing.T) {
	tests := []struct {
		f    llm.Format
		body string
		want llm.StopReason
	}{
		{llm.FormatAnthropic, `{"type":"message","content":[],"stop_reason":"pause_turn"}`, llm.StopEnd},
		{llm.FormatAnthropic, `{"type":"message","content":[],"stop_reason":"model_context_window_exceeded"}`, llm.StopMaxTokens},
		{llm.FormatChat, `{"choices":[{"message":{"content":null},"finish_reason":"function_call"}]}`, llm.StopToolUse},
		{llm.FormatResponses, `{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[]}`, llm.StopMaxTokens},
		{llm.FormatResponses, `{"status":"cancelled","output":[]}`, llm.StopError},
		{llm.FormatGemini, `{"candidates":[{"finishReason":"RECITATION"}]}`, llm.StopRefusal},
		{llm.FormatGemini, `{"candidates":[{"finishReason":"MALFORMED_FUNCTION_CALL"}]}`, llm.StopError},
		{llm.FormatGemini, `{"promptFeedback":{"blockReason":"SAFETY"}}`, llm.StopRefusal},
	}
	for _, tt := range tests {
		t.Run(string(tt.f)+"/"+tt.body, func(t *testing.T) {
			r, err := newCodec(tt.f).DecodeResponse([]byte(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if r.StopReason != tt.want {
				t.Errorf("stop = %q, want %q", r.StopReason, tt.want)
			}
		})
	}
}

// usageWire is where each format writes canonical usage {Input 1000,
// CacheRead 300, CacheWrite 200, Output 500, Reasoning 120}: OpenAI and
// Gemini count cached (and cache-written) tokens inside the prompt, Gemini
// counts thoughts outside the candidates, Anthropic has no reasoning count.
var usageWire = map[llm.Format]map[string]float64{
	llm.FormatAnthropic: {
		"usage.input_tokens": 1000, "usage.cache_read_input_tokens": 300,
		"usage.cache_creation_input_tokens": 200, "usage.output_tokens": 500,
	},
	llm.FormatChat: {
		"usage.prompt_tokens": 1500, "usage.prompt_tokens_details.cached_tokens": 300,
		"usage.completion_tokens": 500, "usage.completion_tokens_details.reasoning_tokens": 120,
		"usage.total_tokens": 2000,
	},
	llm.FormatResponses: {
		"usage.input_tokens": 1500, "usage.input_tokens_details.cached_tokens": 300,
		"usage.output_tokens": 500, "usage.output_tokens_details.reasoning_tokens": 120,
		"usage.total_tokens": 2000,
	},
	llm.FormatGemini: {
		"usageMetadata.promptTokenCount": 1500, "usageMetadata.cachedContentTokenCount": 300,
		"usageMetadata.candidatesTokenCount": 380, "usageMetadata.thoughtsTokenCount": 120,
		"usageMetadata.totalTokenCount": 2000,
	},
}

// TestUsageTable checks every format's usage mapping: the wire counts a
// caller sees and the canonical usage read back from them.
func TestUsageTable(t *testing.T) {
	u := llm.Usage{Input: 1000, CacheRead: 300, CacheWrite: 200, Output: 500, Reasoning: 120}
	for _, f := range llm.Formats {
		t.Run(string(f), func(t *testing.T) {
			r := answerWith(llm.StopEnd)
			r.Usage = u
			body, err := newCodec(f).EncodeResponse(r)
			if err != nil {
				t.Fatal(err)
			}
			for path, want := range usageWire[f] {
				if got := at(t, body, path); got != want {
					t.Errorf("%s = %v, want %v", path, got, want)
				}
			}
			back, err := newCodec(f).DecodeResponse(body)
			if err != nil {
				t.Fatal(err)
			}
			if want := projectUsage(u, f); !reflect.DeepEqual(back.Usage, want) {
				t.Errorf("read back as %+v, want %+v", back.Usage, want)
			}
		})
	}
}
