package openaichat

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// checkFastResponse fails t when fastResponse accepts body but reads it
// otherwise than encoding/json does, or accepts a body encoding/json
// rejects. It reports whether the fast path took the body.
func checkFastResponse(t *testing.T, body []byte) bool {
	t.Helper()
	d, ok := fastResponse(body)
	if !ok {
		return false
	}
	want, err := decodeResponseJSON(body)
	if err != nil {
		t.Fatalf("fast path accepted a body encoding/json rejects (%v):\n%q", err, body)
	}
	if got := d.response(); !reflect.DeepEqual(got, want) {
		t.Fatalf("fast path reads\n%#v\nencoding/json reads\n%#v\nbody %q", got, want, body)
	}
	return true
}

// FuzzFastResponse compares the one-pass response reader with encoding/json
// on arbitrary bodies and mutations of the golden answers.
func FuzzFastResponse(f *testing.F) {
	addFiles(f, "testdata/responses/*.json")
	for _, tc := range fastResponseCases {
		f.Add([]byte(tc.body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkFastResponse(t, body)
	})
}

var fastResponseCases = []struct {
	name string
	body string
	fast bool // the fast path must take it
}{
	{"text", `{"id":"c1","object":"chat.completion","created":1741570283,"model":"gpt-4.1","choices":[{"index":0,"message":{"role":"assistant","content":"Hello there.","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12}}`, true},
	{"tool calls", `{"id":"c","created":1,"model":"m","choices":[{"message":{"content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},{"id":"call_2","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`, true},
	{"refusal", `{"id":"c","model":"m","choices":[{"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`, true},
	{"refusal beside text", `{"choices":[{"message":{"content":"","refusal":"no"}}]}`, true},
	{"reasoning_content", `{"id":"c","model":"deepseek-reasoner","choices":[{"message":{"reasoning_content":"Think \u2014 first.","content":"42"},"finish_reason":"length"}],"usage":{"prompt_tokens":20,"completion_tokens":50,"total_tokens":70,"prompt_cache_hit_tokens":16,"prompt_cache_miss_tokens":4,"completion_tokens_details":{"reasoning_tokens":40}}}`, true},
	{"reasoning", `{"choices":[{"message":{"reasoning":"hmm","reasoning_content":"","content":"ok"}}]}`, true},
	{"null content", `{"choices":[{"message":{"content":null},"finish_reason":null}]}`, true},
	{"null everything", `{"id":null,"created":null,"model":null,"choices":[null,{"message":null}],"usage":null}`, true},
	{"null members", `{"choices":[{"message":{"tool_calls":[null,{"id":null,"function":null}]}}],"usage":{"prompt_tokens_details":null,"completion_tokens_details":null,"prompt_cache_hit_tokens":null}}`, true},
	{"usage with details", `{"usage":{"prompt_tokens":82,"completion_tokens":17,"total_tokens":99,"prompt_tokens_details":{"cached_tokens":64,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":5,"audio_tokens":0,"accepted_prediction_tokens":1,"rejected_prediction_tokens":2}}}`, true},
	{"cached beyond prompt", `{"usage":{"prompt_tokens":3,"prompt_tokens_details":{"cached_tokens":64}}}`, true},
	{"no choices", `{"id":"c","model":"m","choices":[],"usage":{"prompt_tokens":1}}`, true},
	{"null choices", `{"id":"c","choices":null}`, true},
	{"many choices", `{"choices":[{"message":{"content":"a"}},{"message":{"content":"b","tool_calls":[{"id":"x"}]}}]}`, true},
	{"unicode escapes", `{"choices":[{"message":{"content":"caf\u00e9 \"q\" \\ \/ \b\f\n\r\t \u0000 \u20AC"}}]}`, true},
	{"surrogate pair", `{"choices":[{"message":{"content":"smile \ud83d\ude00 done"}}]}`, true},
	{"raw utf-8", `{"model":"m","choices":[{"message":{"content":"Grüße, 世界 😀"}}]}`, true},
	{"white space", " \r\n\t{ \"id\" : \"c\" ,\n\"choices\" : [ { \"message\" : { \"content\" : \"x\" } } ] } \n", true},
	{"negative numbers", `{"created":-5,"usage":{"prompt_tokens":-1,"completion_tokens":-0}}`, true},
	{"unknown members of every kind", `{"x":{"a":[1,-2.5e+3,true,false,null,"s\u00e9",{}],"B":"\ud800"},"y":[],"choices":[{"logprobs":{"content":[{"token":"a","logprob":-0.1}]},"message":{"annotations":[{"type":"url"}]}}]}`, true},
	// The fast path gives up on these; DecodeResponse must still answer as before.
	{"content parts", `{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}}]}`, false},
	{"lone high surrogate", `{"choices":[{"message":{"content":"\ud83d x"}}]}`, false},
	{"lone low surrogate", `{"choices":[{"message":{"content":"\ude00"}}]}`, false},
	{"invalid utf-8", "{\"choices\":[{\"message\":{\"content\":\"a\xffb\"}}]}", false},
	{"duplicate member", `{"model":"a","model":"b"}`, false},
	{"duplicate message", `{"choices":[{"message":{"content":"a"},"message":{"refusal":"b"}}]}`, false},
	{"upper-case key", `{"Model":"m"}`, false},
	{"escaped key", `{"mod\u0065l":"m"}`, false},
	{"float created", `{"created":1.5}`, false},
	{"exponent tokens", `{"usage":{"prompt_tokens":1e2}}`, false},
	{"huge number", `{"created":12345678901234567890}`, false},
	{"string created", `{"created":"1"}`, false},
	{"number content", `{"choices":[{"message":{"content":5}}]}`, false},
	{"object choices", `{"choices":{}}`, false},
	{"null body", `null`, false},
	{"array body", `[]`, false},
	{"empty body", ``, false},
	{"trailing data", `{"id":"c"} x`, false},
	{"truncated", `{"id":"c","choices":[{"message":{"content":"x"`, false},
	{"control byte", "{\"id\":\"a\tb\"}", false},
	{"bad escape", `{"id":"\x"}`, false},
	{"leading zero", `{"created":01}`, false},
	{"trailing comma", `{"id":"c",}`, false},
	{"bad literal", `{"x":nul}`, false},
}

func TestFastResponse(t *testing.T) {
	for _, tc := range fastResponseCases {
		t.Run(tc.name, func(t *testing.T) {
			took := checkFastResponse(t, []byte(tc.body))
			if took != tc.fast {
				t.Fatalf("fast path took the body: %v, want %v", took, tc.fast)
			}
			// DecodeResponse answers as encoding/json does, error or not.
			got, gotErr := New().DecodeResponse([]byte(tc.body))
			want, wantErr := decodeResponseJSON([]byte(tc.body))
			if !reflect.DeepEqual(got, want) || (gotErr == nil) != (wantErr == nil) ||
				(gotErr != nil && gotErr.Error() != wantErr.Error()) {
				t.Fatalf("DecodeResponse = %#v, %v; want %#v, %v", got, gotErr, want, wantErr)
			}
		})
	}
}

func TestFastResponseGoldens(t *testing.T) {
	files, err := filepath.Glob("testdata/responses/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no response goldens: %v", err)
	}
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !checkFastResponse(t, body) {
			t.Errorf("%s: the fast path gave up on a golden answer", f)
		}
	}
}

var benchResponse = []byte(`{"id":"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG","object":"chat.completion","created":1741570283,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"message":{"role":"assistant","content":"The capital of France is Paris. It has been the capital since the 10th century.","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":19,"completion_tokens":10,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"service_tier":"default","system_fingerprint":"fp_b42d5a2d02"}`)

func BenchmarkDecodeResponse(b *testing.B) {
	c := New()
	b.Run("fast", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.DecodeResponse(benchResponse); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeResponseJSON(benchResponse); err != nil {
				b.Fatal(err)
			}
		}
	})
}
