package analytics_test

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// countingStore accepts every row and keeps only their number, so that
// what a test measures is the Writer's own allocation.
type countingStore struct{ rows atomic.Int64 }

func (s *countingStore) InsertAttempts(_ context.Context, rows []analytics.Attempt) error {
	s.rows.Add(int64(len(rows)))
	return nil
}

func (s *countingStore) InsertRequests(_ context.Context, rows []analytics.Request) error {
	s.rows.Add(int64(len(rows)))
	return nil
}

// loadRows is n attempts and n requests shaped like the gateway's, built
// before a measurement so their strings are not counted in it.
func loadRows(from, n int) ([]analytics.Attempt, []analytics.Request) {
	t0 := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	as, rs := make([]analytics.Attempt, n), make([]analytics.Request, n)
	for i := range n {
		id := fmt.Sprintf("%08d", from+i)
		as[i] = analytics.Attempt{EventID: "a" + id, Time: t0.Add(time.Duration(i) * time.Millisecond), OrgID: "org_01J",
			KeyID: "key_01J", RequestID: "req" + id, OperationID: "op" + id, Purpose: "serve", Model: "gpt-5-mini",
			Provider: "openai", Upstream: "openai", CredentialID: "cred_1", Outcome: "served", Status: 200,
			LatencyMs: 12.5, TTFBMs: 3.25, InputTokens: 100, OutputTokens: 20, CostMicros: 340}
		rs[i] = analytics.Request{EventID: "r" + id, Time: as[i].Time, RequestID: "req" + id, OrgID: "org_01J",
			KeyID: "key_01J", Format: "openai.chat", RequestedModel: "gpt-5-mini", ServedModel: "gpt-5-mini",
			Provider: "openai", RouteKind: "explicit", Decision: "pinned", Attempts: 1, InputTokens: 100,
			OutputTokens: 20, CostMicros: 340, LatencyMs: 12.5, TTFBMs: 3.25, Status: 200}
	}
	return as, rs
}

// TestWriterSteadyStateAllocatesLittlePerRow: once its buffers have grown,
// the Writer's path from Record* through the journal to the store costs
// (nearly) no heap per row: rows are not copied onto the heap per Record,
// batches are reused once the store accepted them instead of being grown
// row group by row group, and journal frames are encoded into a reused
// buffer. What is left is per batch (a journal file's creation).
func TestWriterSteadyStateAllocatesLittlePerRow(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	store := &countingStore{}
	const batch, n = 1000, 10000
	cfg := analytics.WriterConfig{QueueSize: 4 * n, BatchSize: batch, FlushInterval: time.Hour, SpillDir: t.TempDir()}
	w := start(t, store, cfg)
	t.Cleanup(func() { closeWriter(t, w, 10*time.Second) })
	// Two batches at a time, then wait for the store: the backlog never
	// holds more than its Pending batches in memory, so nothing is spilled
	// (the spill is the path of a store that is down, not this one).
	feedRows := func(as []analytics.Attempt, rs []analytics.Request) {
		for from := 0; from < len(as); from += batch {
			// Counted before recording: the first of the two batches may
			// be inserted while the second is still being recorded.
			want := store.rows.Load() + 2*batch
			for i := from; i < from+batch; i++ {
				w.RecordAttempt(as[i])
				w.RecordRequest(rs[i])
			}
			testwait.Until(t, 30*time.Second, fmt.Sprintf("%d rows inserted", want), func() bool { return store.rows.Load() == want })
		}
	}
	warmA, warmR := loadRows(0, 4*batch)
	feedRows(warmA, warmR)
	as, rs := loadRows(4*batch, n)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	feedRows(as, rs)
	runtime.ReadMemStats(&after)
	if s := w.Stats(); s.Dropped != 0 || s.JournalErrors != 0 || s.Segments != 0 {
		t.Fatalf("rows dropped or not journaled: %+v", s)
	}
	perRow := float64(after.TotalAlloc-before.TotalAlloc) / (2 * n)
	t.Logf("%.1f bytes allocated per row", perRow)
	if perRow > 64 {
		t.Fatalf("%.1f bytes allocated per row, want at most 64", perRow)
	}
}
