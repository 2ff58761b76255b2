package responses

import (
	"os"
	"testing"
)

// BenchmarkTranslateRequest decodes and re-encodes a captured Codex request;
// compare with BenchmarkSetModel, the same-format fast path on the same body.
func BenchmarkTranslateRequest(b *testing.B) {
	body, err := os.ReadFile("testdata/requests/codex_0169_captured.json")
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

// BenchmarkSetModel is the same-format fast path.
func BenchmarkSetModel(b *testing.B) {
	body, err := os.ReadFile("testdata/requests/codex_0169_captured.json")
	if err != nil {
		b.Fatal(err)
	}
	c := New()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := c.SetModel(body, "gpt-5"); err != nil {
			b.Fatal(err)
		}
	}
}
