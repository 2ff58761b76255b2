package wordvec

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/offline"
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

// BenchmarkDecide is one routing decision with a predictor bundle over
// word vectors (HEDDLE_WORDVEC_FILE, else the tiny vocabulary at 100
// dimensions): twelve models, 32 clusters, a 1 kB prompt. It reports the
// p50 and p99 latency of single decisions.
func BenchmarkDecide(b *testing.B) {
	benchDecide(b, benchVectors(b))
}

func benchVectors(b *testing.B) *Embedder {
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
	return e
}

func benchDecide(b *testing.B, e routing.Embedder) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := append(slices.Clone(tinyWords), "sort", "list", "python", "reverse", "file", "read", "write", "go", "string", "number")
	var samples []offline.Sample
	for range 400 {
		var p []string
		for range 5 + rng.IntN(20) {
			p = append(p, words[rng.IntN(len(words))])
		}
		q, c := map[string]float64{}, map[string]float64{}
		for m := range 12 {
			name := fmt.Sprintf("m%02d", m)
			q[name] = float64(rng.IntN(2))
			c[name] = float64(m+1) / 1000
		}
		samples = append(samples, offline.Sample{Prompt: strings.Join(p, " "), Quality: q, Cost: c})
	}
	ctx := context.Background()
	bundle, err := offline.Train(ctx, offline.TrainConfig{ID: "bench", K: 32, Seed: 1, Scorer: routing.ScorerPredictor}, samples, e)
	if err != nil {
		b.Fatal(err)
	}
	// A generous time limit: on a loaded machine a descheduled decision
	// must show in p99, not fail the benchmark.
	r, err := routing.NewRouter(bundle, e, routing.Config{EmbedTimeout: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("Refactor the session handler so that it returns wrapped errors and add a table-driven test for the expiry path. ", 10)[:1024]
	q := routing.Query{Text: text, Alpha: 0.6, Eligible: bundle.Models}
	lat := make([]time.Duration, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		if _, err := r.Decide(ctx, q); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) }
	b.ReportMetric(pct(0.50), "p50-µs")
	b.ReportMetric(pct(0.99), "p99-µs")
}
