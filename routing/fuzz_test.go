package routing

import (
	"bytes"
	"context"
	"testing"
	"unicode/utf8"

	"github.com/heddle-gw/heddle/llm"
)

// FuzzLoadBundle: a bundle file never panics the loader, and a loaded bundle
// can be routed over without panicking.
func FuzzLoadBundle(f *testing.F) {
	f.Add([]byte(`{"format":1,"id":"b","embedder":{"id":"fake","dim":2,"fingerprint":"fp"},"models":["A","B"],` +
		`"global":[{"q":1,"c":1,"n":1},{"q":0.5,"c":0.1,"n":1}],"clusters":[{"centroid":[1,0],"size":1,"stats":[{"q":1,"c":1,"n":1},{"q":0.5,"c":0.1,"n":1}]}]}`))
	f.Add([]byte(`{"format":1}`))
	f.Add([]byte{0x1f, 0x8b, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := LoadBundle(bytes.NewReader(data))
		if err != nil {
			return
		}
		emb := &fakeEmbedder{id: b.Embedder.ID, fp: b.Embedder.Fingerprint, dim: b.Embedder.Dim, vec: make([]float32, b.Embedder.Dim)}
		if b.Embedder.Dim > 0 {
			emb.vec[0] = 1
		}
		r, err := NewRouter(b, emb, Config{})
		if err != nil {
			return
		}
		_, _ = r.Decide(context.Background(), Query{Text: "x", Alpha: 0.5, Eligible: b.Models})
		_, _ = b.LexicalEmbedder()
	})
}

// FuzzEmbeddingText: never panics, never exceeds the limit, always valid UTF-8
// when the input is.
func FuzzEmbeddingText(f *testing.F) {
	f.Add("hello <system-reminder>x</system-reminder> world", 8)
	f.Add("日本語のテキスト", 5)
	f.Fuzz(func(t *testing.T, text string, max int) {
		req := &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: text}}}}}
		got := EmbeddingText(req, max)
		limit := max
		if limit <= 0 {
			limit = DefaultMaxEmbedBytes
		}
		if len(got) > limit {
			t.Fatalf("%d bytes > limit %d", len(got), limit)
		}
		if utf8.ValidString(text) && !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8 out of valid input: %q", got)
		}
	})
}
