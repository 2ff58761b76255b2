package httpapi

import "testing"

// TestMayStream: only a turn that cannot stream is served inline; any body
// naming a stream field, or Gemini's stream method, goes through the bridge.
func TestMayStream(t *testing.T) {
	tests := []struct {
		name       string
		body       string
		pathStream bool
		want       bool
	}{
		{"chat without stream", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, false, false},
		{"chat stream true", `{"model":"m","stream":true,"messages":[]}`, false, true},
		{"chat stream false", `{"model":"m","stream":false}`, false, false},
		{"spaced key", "{\"model\":\"m\", \"stream\" :\n\t true}", false, true},
		{"stream as a value, then the key", `{"metadata":{"kind":"stream"},"stream":true}`, false, true},
		{"stream options but no stream", `{"stream_options":{"include_usage":true},"stream":false}`, false, false},
		{"gemini stream method", `{"contents":[]}`, true, true},
		{"the word quoted in content is no field", `{"messages":[{"content":"a \"stream\" of text"}]}`, false, false},
		// An escaped key is read as stream by the decoder but served inline:
		// answered whole, as an event stream, not incrementally.
		{"escaped key", `{"\u0073tream":true}`, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := mayStream([]byte(tc.body), tc.pathStream); got != tc.want {
				t.Fatalf("mayStream = %v, want %v", got, tc.want)
			}
		})
	}
}
