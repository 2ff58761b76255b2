package routing

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkDecide is one routing decision with the default bundle: embed a
// 1 kB prompt with lexical-v1 and score all twelve default models. It reports
// the p50 and p99 latency of single decisions.
func BenchmarkDecide(b *testing.B) {
	r, err := DefaultRouter(Config{})
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("Refactor the session handler so that it returns wrapped errors and add a table-driven test for the expiry path. ", 10)[:1024]
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
