package conformance

import (
	"reflect"
	"testing"

	"github.com/heddle-gw/heddle/llm"
)

// sourceUsage is the canonical usage each upstream response and stream
// fixture reports: 2000 prompt tokens of which 800 read from cache (plus 100
// written to it, which only Anthropic counts apart), 150 output tokens of
// which 64 reasoning (which Anthropic does not count apart).
var sourceUsage = map[llm.Format]llm.Usage{
	llm.FormatAnthropic: {Input: 1200, CacheRead: 800, CacheWrite: 100, Output: 150},
	llm.FormatChat:      {Input: 1200, CacheRead: 800, Output: 150, Reasoning: 64},
	llm.FormatResponses: {Input: 1200, CacheRead: 800, Output: 150, Reasoning: 64},
	llm.FormatGemini:    {Input: 1200, CacheRead: 800, Output: 150, Reasoning: 64},
}

// sourceModel is the model each upstream response fixture names.
var sourceModel = map[llm.Format]string{
	llm.FormatAnthropic: "claude-sonnet-4-5-20250929",
	llm.FormatChat:      "gpt-4.1-2025-04-14",
	llm.FormatResponses: "gpt-5-2025-08-07",
	llm.FormatGemini:    "gemini-2.5-flash",
}

// responseCallID is the tool-call id of each upstream response fixture; a
// Gemini call has none and gets one derived from the responseId.
var responseCallID = map[llm.Format]string{
	llm.FormatAnthropic: "toolu_01WeatherTomorrow",
	llm.FormatChat:      "call_WeatherTomorrow",
	llm.FormatResponses: "call_WeatherTomorrow",
	llm.FormatGemini:    "call_ForecastAnswer_1",
}

const answerText = "I will check tomorrow's forecast for Paris."

// wantAnswer is what upstream B's response says once a caller of format in
// has read it.
func wantAnswer(up, in llm.Format, callID string) answer {
	return answer{
		Model: sourceModel[up],
		Content: []string{
			"text: " + answerText,
			"call " + callID + ` get_weather {"city":"Paris","day":"tomorrow"}`,
		},
		Stop:  llm.StopToolUse,
		Usage: projectUsage(sourceUsage[up], in),
	}
}

// TestResponseFixtures checks each upstream fixture's canonical reading.
func TestResponseFixtures(t *testing.T) {
	for _, f := range llm.Formats {
		t.Run(string(f), func(t *testing.T) {
			r, err := newCodec(f).DecodeResponse(readFixture(t, "response", f, ".json"))
			if err != nil {
				t.Fatal(err)
			}
			want := wantAnswer(f, f, responseCallID[f])
			want.Usage = sourceUsage[f]
			if got := answerOf(r); !reflect.DeepEqual(got, want) {
				t.Errorf("answer:\n got %#v\nwant %#v", got, want)
			}
		})
	}
}

// TestResponseMatrix decodes each upstream response of B, encodes it for a
// caller of A, pins the body by golden and reads it back with A.
func TestResponseMatrix(t *testing.T) {
	for _, p := range pairs() {
		name := string(p.up) + "__" + string(p.in)
		t.Run(name, func(t *testing.T) {
			src, err := newCodec(p.up).DecodeResponse(readFixture(t, "response", p.up, ".json"))
			if err != nil {
				t.Fatalf("decode %s response: %v", p.up, err)
			}
			body, err := newCodec(p.in).EncodeResponse(src)
			if err != nil {
				t.Fatalf("encode for a %s caller: %v", p.in, err)
			}
			checkGolden(t, "response/"+name+".json", indent(t, body))

			dst, err := newCodec(p.in).DecodeResponse(body)
			if err != nil {
				t.Fatalf("%s does not decode its own response: %v", p.in, err)
			}
			want := wantAnswer(p.up, p.in, responseCallID[p.up])
			if got := answerOf(dst); !reflect.DeepEqual(got, want) {
				t.Errorf("after %s -> %s -> decode:\n got %#v\nwant %#v", p.up, p.in, got, want)
			}
		})
	}
}
