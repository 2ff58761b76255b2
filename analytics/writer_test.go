package analytics_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/analyticstest"
	"github.com/heddle-gw/heddle/internal/testwait"
)

var errDown = errors.New("store down")

// fastConfig keeps timings short so tests run in milliseconds.
func fastConfig(dir string) analytics.WriterConfig {
	return analytics.WriterConfig{
		QueueSize: 10000, BatchSize: 50, FlushInterval: 5 * time.Millisecond, Pending: 2,
		InsertTimeout: 200 * time.Millisecond, MaxRetries: 2,
		RetryBase: 2 * time.Millisecond, RetryMax: 20 * time.Millisecond, SpillDir: dir,
	}
}

// feed records n attempts and n requests interleaved, with ids numbered from
// start, and returns the ids in record order.
func feed(w *analytics.Writer, start, n int) (attempts, requests []string) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for i := start; i < start+n; i++ {
		a := analytics.Attempt{EventID: fmt.Sprintf("a%06d", i), OrgID: "org", RequestID: fmt.Sprintf("req%06d", i),
			Time: t0.Add(time.Duration(i) * time.Millisecond), Outcome: "served", CostMicros: int64(i)}
		r := analytics.Request{EventID: fmt.Sprintf("r%06d", i), OrgID: "org", RequestID: a.RequestID,
			Time: a.Time, Status: 200, CostMicros: int64(i)}
		w.RecordAttempt(a)
		w.RecordRequest(r)
		attempts, requests = append(attempts, a.EventID), append(requests, r.EventID)
	}
	return attempts, requests
}

func attemptIDs(s *analyticstest.Store) []string {
	var ids []string
	for _, a := range s.Attempts() {
		ids = append(ids, a.EventID)
	}
	return ids
}

func requestIDs(s *analyticstest.Store) []string {
	var ids []string
	for _, r := range s.Requests() {
		ids = append(ids, r.EventID)
	}
	return ids
}

func start(t *testing.T, store analytics.Store, cfg analytics.WriterConfig) *analytics.Writer {
	t.Helper()
	w := analytics.NewWriter(store, cfg, nil)
	if err := w.Start(context.Background()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	return w
}

func closeWriter(t *testing.T, w *analytics.Writer, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := w.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func segments(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.seg"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// assertDelivered checks the store holds exactly the ids, in order.
func assertDelivered(t *testing.T, s *analyticstest.Store, attempts, requests []string) {
	t.Helper()
	if got := attemptIDs(s); !slices.Equal(got, attempts) {
		t.Fatalf("attempts: got %d rows (first %v), want %d in order", len(got), head(got), len(attempts))
	}
	if got := requestIDs(s); !slices.Equal(got, requests) {
		t.Fatalf("requests: got %d rows (first %v), want %d in order", len(got), head(got), len(requests))
	}
}

func head(s []string) []string { return s[:min(len(s), 5)] }

func TestWriterHealthyStoreDeliversEverythingInOrder(t *testing.T) {
	store := analyticstest.NewStore()
	dir := t.TempDir()
	cfg := fastConfig(dir)
	// The stats must show no failure: an insert into the in-memory store
	// must not time out because a busy machine left it unscheduled.
	cfg.InsertTimeout = 30 * time.Second
	w := start(t, store, cfg)
	a, r := feed(w, 0, 1234)
	closeWriter(t, w, 5*time.Second)

	assertDelivered(t, store, a, r)
	if d := store.Duplicates(); d != 0 {
		t.Errorf("duplicates sent: %d", d)
	}
	got := w.Stats()
	want := analytics.Stats{Inserted: 2468, Journaled: 2468, JournalSyncs: max(got.JournalSyncs, 1)}
	if got != want {
		t.Errorf("stats: got %+v, want %+v", got, want)
	}
	if segs := segments(t, dir); len(segs) != 0 {
		t.Errorf("segments left: %v", segs)
	}
}

func TestWriterFailingStoreSpillsThenReplaysInOrder(t *testing.T) {
	store := analyticstest.NewStore()
	store.FailWith(errDown)
	dir := t.TempDir()
	w := start(t, store, fastConfig(dir))

	a1, r1 := feed(w, 0, 300)
	testwait.Until(t, 10*time.Second, "rows spilled", func() bool {
		s := w.Stats()
		return s.Segments > 0 && s.Queued == 0 && s.SpilledBytes > 0
	})
	a2, r2 := feed(w, 300, 300)
	testwait.Until(t, 10*time.Second, "second round spilled", func() bool { return w.Stats().Queued == 0 })
	if s := w.Stats(); s.Failures == 0 || s.Inserted != 0 || s.Dropped != 0 {
		t.Fatalf("while down: %+v", s)
	}
	if n := len(store.Attempts()) + len(store.Requests()); n != 0 {
		t.Fatalf("store holds %d rows while failing", n)
	}

	store.FailWith(nil)
	testwait.Until(t, 10*time.Second, "replay", func() bool { return w.Stats().Segments == 0 })
	a3, r3 := feed(w, 600, 100)
	closeWriter(t, w, 5*time.Second)

	assertDelivered(t, store, slices.Concat(a1, a2, a3), slices.Concat(r1, r2, r3))
	if d := store.Duplicates(); d != 0 {
		t.Errorf("duplicates sent: %d", d)
	}
	st := w.Stats()
	if st.Inserted != 1400 || st.Dropped != 0 || st.Segments != 0 || st.SpilledBytes != 0 || st.Corrupt != 0 {
		t.Errorf("stats after replay: %+v", st)
	}
	if segs := segments(t, dir); len(segs) != 0 {
		t.Errorf("segments left: %v", segs)
	}
}

func TestWriterBlockedStoreNeverBlocksRecord(t *testing.T) {
	store := analyticstest.NewStore()
	store.Block()
	dir := t.TempDir()
	cfg := fastConfig(dir)
	cfg.InsertTimeout = time.Hour // the insert hangs until Unblock
	w := start(t, store, cfg)

	done := make(chan struct{})
	var a, r []string
	go func() {
		defer close(done)
		a, r = feed(w, 0, 2000)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Record* blocked behind a blocked store")
	}
	testwait.Until(t, 10*time.Second, "rows spilled", func() bool { return w.Stats().Queued <= 100 && w.Stats().Segments > 0 })
	if s := w.Stats(); s.Dropped != 0 || s.Inserted != 0 {
		t.Fatalf("while blocked: %+v", s)
	}
	store.Unblock()
	closeWriter(t, w, 10*time.Second)
	assertDelivered(t, store, a, r)
	if s := w.Stats(); s.Inserted != 4000 || s.Dropped != 0 || s.Segments != 0 {
		t.Errorf("stats: %+v", s)
	}
}

func TestWriterWithoutSpillDropsAndCountsWhenFull(t *testing.T) {
	store := analyticstest.NewStore()
	store.Block()
	cfg := fastConfig("")
	cfg.QueueSize, cfg.Pending, cfg.InsertTimeout = 100, 1, time.Hour
	w := start(t, store, cfg)

	done := make(chan struct{})
	go func() { defer close(done); feed(w, 0, 5000) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Record* blocked")
	}
	testwait.Until(t, 10*time.Second, "queue drained into drops", func() bool { return w.Stats().Queued <= 150 })
	store.Unblock()
	closeWriter(t, w, 10*time.Second)

	s := w.Stats()
	stored := int64(len(store.Attempts()) + len(store.Requests()))
	if s.Dropped == 0 || s.Dropped+stored != 10000 || s.Inserted != stored || s.Segments != 0 {
		t.Errorf("dropped %d + stored %d != 10000 (stats %+v)", s.Dropped, stored, s)
	}
}

func TestWriterRestartReplaysPreviousSpill(t *testing.T) {
	dir := t.TempDir()
	down := analyticstest.NewStore()
	down.FailWith(errDown)
	w1 := start(t, down, fastConfig(dir))
	a1, r1 := feed(w1, 0, 500)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	err := w1.Close(ctx)
	cancel()
	if err != nil {
		t.Fatalf("Close of the failing writer lost rows: %v", err)
	}
	if len(segments(t, dir)) == 0 || w1.Stats().SpilledBytes == 0 {
		t.Fatalf("no spill left by the first process: %+v", w1.Stats())
	}

	up := analyticstest.NewStore()
	w2 := start(t, up, fastConfig(dir))
	a2, r2 := feed(w2, 500, 200)
	closeWriter(t, w2, 5*time.Second)

	assertDelivered(t, up, slices.Concat(a1, a2), slices.Concat(r1, r2))
	if s := w2.Stats(); s.Segments != 0 || s.SpilledBytes != 0 || s.Dropped != 0 || s.Corrupt != 0 {
		t.Errorf("second writer stats: %+v", s)
	}
	if segs := segments(t, dir); len(segs) != 0 {
		t.Errorf("segments left: %v", segs)
	}
}

func TestWriterSkipsTornTail(t *testing.T) {
	dir := t.TempDir()
	down := analyticstest.NewStore()
	down.FailWith(errDown)
	w1 := start(t, down, fastConfig(dir))
	a1, r1 := feed(w1, 0, 100)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	_ = w1.Close(ctx)
	cancel()
	segs := segments(t, dir)
	if len(segs) == 0 {
		t.Fatal("no segment")
	}
	// A crash mid-append leaves a frame header promising more bytes than
	// follow.
	f, err := os.OpenFile(segs[len(segs)-1], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte{0, 0, 1, 0, 9, 9, 9, 9, '{', '"'}); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()

	up := analyticstest.NewStore()
	w2 := start(t, up, fastConfig(dir))
	closeWriter(t, w2, 5*time.Second)
	assertDelivered(t, up, a1, r1)
	if s := w2.Stats(); s.Corrupt != 1 || s.Segments != 0 {
		t.Errorf("stats: %+v", s)
	}
}

func TestWriterSpillFullDropsAndCounts(t *testing.T) {
	store := analyticstest.NewStore()
	store.FailWith(errDown)
	cfg := fastConfig(t.TempDir())
	cfg.MaxSpillBytes = 4096
	w := start(t, store, cfg)
	feed(w, 0, 500)
	testwait.Until(t, 10*time.Second, "drops", func() bool { s := w.Stats(); return s.Dropped > 0 && s.Queued <= 100 })
	s := w.Stats()
	if s.SpilledBytes > 4096 {
		t.Errorf("spill grew past its bound: %+v", s)
	}
	store.FailWith(nil)
	closeWriter(t, w, 5*time.Second)
	s = w.Stats()
	stored := int64(len(store.Attempts()) + len(store.Requests()))
	if s.Dropped+stored != 1000 {
		t.Errorf("dropped %d + stored %d != 1000", s.Dropped, stored)
	}
}

func TestWriterDropsOnlyRejectedRows(t *testing.T) {
	store := analyticstest.NewStore()
	store.Reject("a000042", "r000007", "r000099")
	dir := t.TempDir()
	w := start(t, store, fastConfig(dir))
	a, r := feed(w, 0, 120)
	closeWriter(t, w, 5*time.Second)

	keep := func(ids []string, drop ...string) []string {
		return slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return slices.Contains(drop, id) })
	}
	assertDelivered(t, store, keep(a, "a000042"), keep(r, "r000007", "r000099"))
	if s := w.Stats(); s.Rejected != 3 || s.Inserted != 237 || s.Dropped != 0 || s.Segments != 0 {
		t.Errorf("stats: %+v", s)
	}
}
