package routing

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkDecide is one routing decision with the default bundle: embed a
// 1 kB prompt with lexical-v1 and score all twelve default models, with the
// bundle's Avengers-Pro scorer, with the expected scorer over the same
// clusters, and with a per-query predictor of the trained shape (random
// weights and blend: the arithmetic is the same), and that predictor with a
// 1.6 kB learned preamble before the same 1 kB prompt (stripped before
// embedding). It reports the p50 and p99 latency of single decisions.
func BenchmarkDecide(b *testing.B) {
	def, err := DefaultBundle()
	if err != nil {
		b.Fatal(err)
	}
	expected := *def
	expected.Scorer, expected.Dial = ScorerExpected, []float64{1000, 100, 10, 1, 0}
	if err := expected.Prepare(); err != nil {
		b.Fatal(err)
	}
	predictor := expected
	rng := rand.New(rand.NewPCG(1, 1))
	weights := func(n int) []float32 {
		w := make([]float32, n)
		for i := range w {
			w[i] = float32(rng.NormFloat64() / 10)
		}
		return w
	}
	dim := def.Embedder.Dim
	p := &Predictor{FeatureVersion: FeatureVersion, Shared: weights(dim + QueryFeatureCount + 1), QMax: 1}
	for range QueryFeatureCount {
		p.Mean, p.Scale = append(p.Mean, 0.5), append(p.Scale, 2)
	}
	for range def.Models {
		p.Weights = append(p.Weights, weights(dim+QueryFeatureCount+2))
		p.CalA, p.CalB = append(p.CalA, 1.1), append(p.CalB, -0.1)
		p.Blend = append(p.Blend, 0.7)
	}
	predictor.Scorer, predictor.Predictor = ScorerPredictor, p
	if err := predictor.Prepare(); err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("Refactor the session handler so that it returns wrapped errors and add a table-driven test for the expiry path. ", 10)[:1024]
	preamble := strings.Repeat("Question: which gas do plants take in?\nA) oxygen\nB) carbon dioxide\nAnswer: B\n\n", 20)
	withPreamble := predictor
	withPreamble.Preambles = []string{preamble}
	if err := withPreamble.Prepare(); err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		bundle *Bundle
		text   string
	}{
		{ScorerAvengersPro, def, text},
		{ScorerExpected, &expected, text},
		{ScorerPredictor, &predictor, text},
		{ScorerPredictor + "-preamble", &withPreamble, preamble + text},
	} {
		b.Run(tc.name, func(b *testing.B) { benchDecide(b, tc.bundle, tc.text) })
	}
}

func benchDecide(b *testing.B, bundle *Bundle, text string) {
	emb, err := bundle.LexicalEmbedder()
	if err != nil {
		b.Fatal(err)
	}
	r, err := NewRouter(bundle, emb, Config{})
	if err != nil {
		b.Fatal(err)
	}
	q := Query{Text: text, Alpha: 0.6, Eligible: r.Bundle().Models}
	ctx := context.Background()
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
