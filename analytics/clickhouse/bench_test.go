package clickhouse_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

const (
	benchRows  = 50_000
	benchBatch = 10_000
)

func benchAttempts(run, n int) []analytics.Attempt {
	t0 := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	out := make([]analytics.Attempt, n)
	for i := range out {
		out[i] = analytics.Attempt{
			EventID: fmt.Sprintf("bench-%d-%07d", run, i), Time: t0.Add(time.Duration(i) * time.Millisecond),
			OrgID: fmt.Sprintf("org-%d", i%20), KeyID: "key-1", RequestID: fmt.Sprintf("req-%d-%d", run, i),
			OperationID: "op-1", Purpose: "main", Model: "gpt-5-mini", Provider: "openai", Upstream: "gpt-5-mini",
			Outcome: "served", Status: 200, LatencyMs: 812.5, TTFBMs: 240.25, InputTokens: 1200, OutputTokens: 300,
			CostMicros: 450, Stream: true,
		}
	}
	return out
}

// BenchmarkIngest measures, in the same run against the real server, rows
// per second through the Writer (Record*, batching, the inserter, Close)
// and through raw PrepareBatch inserts of the same size, and reports their
// ratio. Each op ingests 50,000 attempt rows both ways.
func BenchmarkIngest(b *testing.B) {
	s := openFresh(b)
	ctx := context.Background()
	var raw, through time.Duration
	run := 0
	for b.Loop() {
		run++
		rows := benchAttempts(2*run, benchRows)
		start := time.Now()
		for i := 0; i < len(rows); i += benchBatch {
			if err := s.InsertAttempts(ctx, rows[i:min(i+benchBatch, len(rows))]); err != nil {
				b.Fatal(err)
			}
		}
		raw += time.Since(start)

		rows = benchAttempts(2*run+1, benchRows)
		w := analytics.NewWriter(s, analytics.WriterConfig{
			QueueSize: benchRows, BatchSize: benchBatch, FlushInterval: 50 * time.Millisecond, SpillDir: b.TempDir(),
		}, nil)
		start = time.Now()
		if err := w.Start(ctx); err != nil {
			b.Fatal(err)
		}
		for _, a := range rows {
			w.RecordAttempt(a)
		}
		if err := w.Close(ctx); err != nil {
			b.Fatal(err)
		}
		through += time.Since(start)
		if st := w.Stats(); st.Inserted != benchRows || st.Dropped != 0 {
			b.Fatalf("writer stats: %+v", st)
		}
	}
	total := float64(run * benchRows)
	rawRate, writerRate := total/raw.Seconds(), total/through.Seconds()
	b.ReportMetric(rawRate, "raw_rows/s")
	b.ReportMetric(writerRate, "writer_rows/s")
	b.ReportMetric(writerRate/rawRate, "writer/raw")
}
