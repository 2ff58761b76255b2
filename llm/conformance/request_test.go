package conformance

import (
	"reflect"
	"testing"

	"github.com/heddle-gw/heddle/llm"
)

const pixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// wantConversation is what every request fixture says, with call ids
// rendered by pairing.
var wantConversation = conversation{
	System:    "You are a terse travel assistant. Answer in one sentence.",
	MaxTokens: 1024,
	Tools: []string{
		`get_weather: Get the weather for a city on a given day. {"properties":{"city":{"description":"City name","type":"string"},"day":{"enum":["today","tomorrow"],"type":"string"}},"required":["city","day"],"type":"object"}`,
	},
	Turns: []turn{
		{"user", []string{
			"text: Where was this photo taken, and what is the weather there today?",
			"image: image/png " + pixelPNG,
		}},
		{"assistant", []string{
			"text: That is the Eiffel Tower in Paris. Let me check the weather.",
			`call #1 get_weather {"city":"Paris","day":"today"}`,
		}},
		{"tool", []string{"result #1 error=false [text: 18 C, light rain]"}},
		{"assistant", []string{"text: It is 18 C with light rain in Paris today."}},
		{"user", []string{"text: Should I bring an umbrella tomorrow?"}},
	},
}

// fixtureCallID is the id each request fixture gives its tool call (Gemini
// sends none: the decoder numbers the calls).
var fixtureCallID = map[llm.Format]string{
	llm.FormatAnthropic: "toolu_01WeatherToday",
	llm.FormatChat:      "call_WeatherToday",
	llm.FormatResponses: "call_WeatherToday",
	llm.FormatGemini:    "call_1",
}

// TestRequestFixtures checks that every format's fixture decodes to the
// same conversation, so the matrix starts from equal content.
func TestRequestFixtures(t *testing.T) {
	for _, f := range llm.Formats {
		t.Run(string(f), func(t *testing.T) {
			req := decodeRequest(t, f, readFixture(t, "request", f, ".json"))
			got := conversationOf(req, pairedIDs)
			want := wantConversation
			want.Model = fixtureModel[f]
			if !reflect.DeepEqual(got, want) {
				t.Errorf("conversation:\n got %#v\nwant %#v", got, want)
			}
			if id := callIDOf(req); id != fixtureCallID[f] {
				t.Errorf("tool call id = %q, want %q", id, fixtureCallID[f])
			}
		})
	}
}

// TestRequestMatrix translates each request fixture of A into B's request
// body, pins it by golden, and decodes it with B to check that nothing the
// caller said was lost.
func TestRequestMatrix(t *testing.T) {
	for _, p := range pairs() {
		t.Run(p.String(), func(t *testing.T) {
			src := decodeRequest(t, p.in, readFixture(t, "request", p.in, ".json"))
			src.Model = upstreamModel[p.up]
			body, err := newCodec(p.up).EncodeRequest(src)
			if err != nil {
				t.Fatalf("encode for %s: %v", p.up, err)
			}
			checkGolden(t, "request/"+p.String()+".json", indent(t, body))

			dst, err := newCodec(p.up).DecodeRequest(body)
			if err != nil {
				t.Fatalf("%s does not decode its own translation: %v", p.up, err)
			}
			if !keepsModel(p.up) {
				dst.Model = upstreamModel[p.up] // in the URL
			}
			want := wantConversation
			want.Model = upstreamModel[p.up]
			if got := conversationOf(dst, pairedIDs); !reflect.DeepEqual(got, want) {
				t.Errorf("after %s -> %s -> decode:\n got %#v\nwant %#v", p.in, p.up, got, want)
			}
			if keepsRequestIDs(p.up) {
				if got, want := conversationOf(dst, rawIDs), conversationOf(src, rawIDs); !reflect.DeepEqual(got.Turns, want.Turns) {
					t.Errorf("tool-call ids changed:\n got %#v\nwant %#v", got.Turns, want.Turns)
				}
				if id := callIDOf(dst); id != fixtureCallID[p.in] {
					t.Errorf("tool call id = %q, want %q", id, fixtureCallID[p.in])
				}
			}
		})
	}
}

// callIDOf returns the id of the first tool call in r.
func callIDOf(r *llm.Request) string {
	for _, m := range r.Messages {
		for _, p := range m.Content {
			if p.Type == llm.PartToolCall {
				return p.ID
			}
		}
	}
	return ""
}
