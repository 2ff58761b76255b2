package gemini

import (
	"os"
	"testing"
)

// BenchmarkTranslateRequest decodes and re-encodes the tool-turn request
// (Gemini has no model in its body, so its fast path forwards bytes as they are);
// compare with BenchmarkSetModel, the same-format fast path on the same body.
func BenchmarkTranslateRequest(b *testing.B) {
	body, err := os.ReadFile("testdata/requests/tool_turn.json")
	if err != nil {
		b.Fatal(err)
	}
	c := New()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		req, err := c.DecodeRequest(body)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.EncodeRequest(req); err != nil {
			b.Fatal(err)
		}
	}
}
