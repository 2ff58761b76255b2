package wordvec

import (
	"os"
	"strings"
	"testing"
)

// BenchmarkEmbed embeds a 1 kB prompt with the vectors of
// HEDDLE_WORDVEC_FILE (the tiny test vocabulary when unset: same
// tokenizer work, fewer known words).
func BenchmarkEmbed(b *testing.B) {
	var e *Embedder
	var err error
	if path := os.Getenv("HEDDLE_WORDVEC_FILE"); path != "" {
		e, err = Open(path)
	} else {
		e, err = New(tinyVectors(100, 1), DefaultA)
	}
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("Refactor the session handler so that it returns wrapped errors and add a table-driven test for the expiry path. ", 10)[:1024]
	out := make([]float32, e.Dim())
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		e.EmbedInto(out, text)
	}
}
