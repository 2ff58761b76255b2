package analytics_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/analyticstest"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// journalConfig keeps every row in memory (a long flush interval, a store
// that never answers), so only the journal can save the rows from a crash.
func journalConfig(dir string) analytics.WriterConfig {
	cfg := fastConfig(dir)
	cfg.BatchSize, cfg.FlushInterval, cfg.Pending, cfg.InsertTimeout = 100, time.Hour, 1000, time.Hour
	return cfg
}

// snapshot copies dir as a kill -9 would leave it at this moment.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		src, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(dst, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, src); err != nil {
			t.Fatal(err)
		}
		_ = src.Close()
		_ = out.Close()
	}
	return dst
}

func journals(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.wal"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestWriterCrashKeepsJournaledRows: rows only in memory (a batch in flight
// to a hung store, others waiting behind it, one being built) survive a
// crash through the journal; the next writer on that directory delivers
// every one, in order, and deletes the journal.
func TestWriterCrashKeepsJournaledRows(t *testing.T) {
	hung := analyticstest.NewStore()
	hung.Block()
	t.Cleanup(hung.Unblock)
	dir := t.TempDir()
	w := analytics.NewWriter(hung, journalConfig(dir), nil)
	if err := w.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	a, r := feed(w, 0, 1234)
	testwait.Until(t, 10*time.Second, "every row journaled", func() bool { return w.Stats().Journaled == 2468 })
	crashed := snapshot(t, dir)
	if len(journals(t, crashed)) < 2 {
		t.Fatalf("journal files at the crash: %v", journals(t, crashed))
	}
	if s := w.Stats(); s.Inserted != 0 || s.Segments != 0 {
		t.Fatalf("before the crash the rows must be in memory only: %+v", s)
	}

	store := analyticstest.NewStore()
	next := start(t, store, fastConfig(crashed))
	closeWriter(t, next, 10*time.Second)
	assertDelivered(t, store, a, r)
	if d := store.Duplicates(); d != 0 {
		t.Errorf("duplicates: %d", d)
	}
	if left := slices.Concat(journals(t, crashed), segments(t, crashed)); len(left) != 0 {
		t.Errorf("files left after replay: %v", left)
	}
}

// TestWriterCrashTornJournalTail: a group cut short by the crash ends its
// journal file; the groups before it are delivered and the cut one counted
// as corrupt.
func TestWriterCrashTornJournalTail(t *testing.T) {
	hung := analyticstest.NewStore()
	hung.Block()
	t.Cleanup(hung.Unblock)
	dir := t.TempDir()
	cfg := journalConfig(dir)
	cfg.BatchSize = 100000 // one journal file
	w := analytics.NewWriter(hung, cfg, nil)
	if err := w.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	a1, r1 := feed(w, 0, 10)
	testwait.Until(t, 10*time.Second, "first group journaled", func() bool { return w.Stats().Journaled == 20 })
	feed(w, 10, 10)
	testwait.Until(t, 10*time.Second, "second group journaled", func() bool { return w.Stats().Journaled == 40 })
	crashed := snapshot(t, dir)
	files := journals(t, crashed)
	if len(files) != 1 {
		t.Fatalf("journal files: %v", files)
	}
	fi, err := os.Stat(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(files[0], fi.Size()-3); err != nil {
		t.Fatal(err)
	}

	store := analyticstest.NewStore()
	next := start(t, store, fastConfig(crashed))
	closeWriter(t, next, 10*time.Second)
	got := len(store.Attempts()) + len(store.Requests())
	// The first group is whole; of the second, whatever groups were committed
	// before its last one.
	if got < 20 || got >= 40 {
		t.Fatalf("rows after a torn tail: %d, want the committed groups before it (>= 20, < 40)", got)
	}
	if !slices.Equal(attemptIDs(store)[:10], a1) || !slices.Equal(requestIDs(store)[:10], r1) {
		t.Errorf("first group not delivered in order: %v %v", attemptIDs(store), requestIDs(store))
	}
	if s := next.Stats(); s.Corrupt != 1 {
		t.Errorf("corrupt = %d, want 1 (the torn group)", s.Corrupt)
	}
}

// TestWriterJournalDeletedOnceInserted: a healthy store leaves no journal
// behind, and the journal of batches moved to the spill is deleted too.
func TestWriterJournalDeletedOnceInserted(t *testing.T) {
	store := analyticstest.NewStore()
	dir := t.TempDir()
	w := start(t, store, fastConfig(dir))
	feed(w, 0, 500)
	testwait.Until(t, 10*time.Second, "inserted", func() bool { return w.Stats().Inserted == 1000 })
	testwait.Until(t, 10*time.Second, "journal deleted", func() bool { return len(journals(t, dir)) == 0 })

	store.FailWith(errDown)
	feed(w, 500, 500)
	testwait.Until(t, 10*time.Second, "spilled, journal deleted while the store is down", func() bool {
		s := w.Stats()
		return s.Queued == 0 && s.Segments > 0 && len(journals(t, dir)) == 0
	})
	if s := w.Stats(); s.Inserted != 1000 {
		t.Fatalf("inserted while down: %+v", s)
	}
	store.FailWith(nil)
	closeWriter(t, w, 10*time.Second)
	if n := len(store.Requests()); n != 1000 {
		t.Errorf("requests delivered: %d", n)
	}
}

// TestWriterCloseWithStoreDownKeepsRowsInSpill: closing while the store
// keeps failing ends once every row is in the spill (not at the end of
// Close's deadline), and the next writer delivers them.
func TestWriterCloseWithStoreDownKeepsRowsInSpill(t *testing.T) {
	store := analyticstest.NewStore()
	store.FailWith(errDown)
	dir := t.TempDir()
	w := start(t, store, fastConfig(dir))
	a, r := feed(w, 0, 300)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := w.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatal("Close waited out its whole deadline with every row already spilled")
	}
	if s := w.Stats(); s.Segments == 0 || s.Dropped != 0 || s.Inserted != 0 {
		t.Fatalf("after Close: %+v", s)
	}
	store.FailWith(nil)
	next := start(t, store, fastConfig(dir))
	closeWriter(t, next, 10*time.Second)
	assertDelivered(t, store, a, r)
}

// TestWriterCloseRetriesStoreThatFailedBeforeClose: failures met before
// Close do not make Close give up. The store fails MaxRetries times (the
// rows go to the spill), an insert begun before Close fails after Close
// began, and the store is back: Close still replays the whole spill.
func TestWriterCloseRetriesStoreThatFailedBeforeClose(t *testing.T) {
	store := analyticstest.NewStore()
	store.FailWith(errDown)
	cfg := fastConfig(t.TempDir())
	// Only Close flushes the partial batch, and the blocked insert fails
	// when the test lets it, not on a timeout.
	cfg.FlushInterval, cfg.InsertTimeout = time.Hour, time.Minute
	w := start(t, store, cfg)
	a, r := feed(w, 0, 55) // two full batches of 50 rows, 10 rows left open
	testwait.Until(t, 10*time.Second, "MaxRetries failures, full batches spilled", func() bool {
		s := w.Stats()
		return s.Failures >= int64(cfg.MaxRetries) && s.Segments > 0 && s.Queued == 10
	})

	store.Block()
	calls := store.Calls()
	testwait.Until(t, 10*time.Second, "an insert in flight, bound to fail", func() bool { return store.Calls() > calls })
	store.FailWith(nil) // the store is back for every later insert

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	closed := make(chan error, 1)
	go func() { closed <- w.Close(ctx) }()
	testwait.Until(t, 10*time.Second, "Close began: the open batch flushed", func() bool { return w.Stats().Queued == 0 })
	store.Unblock()
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
	if s := w.Stats(); s.Segments != 0 || s.SpilledBytes != 0 || s.Dropped != 0 {
		t.Fatalf("Close left rows in the spill with the store up: %+v", s)
	}
	assertDelivered(t, store, a, r)
}

// TestWriterCloseCutsLongBackoffShort: after a long outage the inserter
// sleeps for long between tries (RetryMax is an hour here). Close does not
// wait that out: it tries at once, backs off from RetryBase, and with the
// store still down it ends after MaxRetries tries, every row in the spill
// for the next writer.
func TestWriterCloseCutsLongBackoffShort(t *testing.T) {
	store := analyticstest.NewStore()
	store.FailWith(errDown)
	dir := t.TempDir()
	cfg := fastConfig(dir)
	cfg.RetryBase, cfg.RetryMax = 10*time.Millisecond, time.Hour
	w := start(t, store, cfg)
	a, r := feed(w, 0, 120)
	// One Retry per failure cuts that failure's backoff short, up to the
	// 14th: its backoff, 10ms<<13 (82s), is left running when Close starts.
	var seen int64
	testwait.Until(t, 30*time.Second, "14 failed tries", func() bool {
		if f := w.Stats().Failures; f > seen && f < 14 {
			seen = f
			w.Retry()
		}
		return w.Stats().Failures >= 14
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := w.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatal("Close waited out its whole deadline behind the outage's backoff")
	}
	if s := w.Stats(); s.Segments == 0 || s.Dropped != 0 || s.Inserted != 0 {
		t.Fatalf("after Close: %+v", s)
	}
	store.FailWith(nil)
	next := start(t, store, fastConfig(dir))
	closeWriter(t, next, 10*time.Second)
	assertDelivered(t, store, a, r)
}

// TestWriterJournalSyncsPerInterval: groups written one after another within
// SyncInterval share one fsync instead of one each (the syncer rests between
// fsyncs), and Close still delivers every row and fsyncs the sealed file
// at once.
func TestWriterJournalSyncsPerInterval(t *testing.T) {
	store := analyticstest.NewStore()
	cfg := journalConfig(t.TempDir())
	cfg.SyncInterval = time.Hour
	w := analytics.NewWriter(store, cfg, nil)
	if err := w.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	var a, r []string
	for i := range 20 {
		ai, ri := feed(w, i, 1)
		a, r = append(a, ai...), append(r, ri...)
		testwait.Until(t, 10*time.Second, "group journaled", func() bool { return w.Stats().Journaled == int64(2*(i+1)) })
	}
	if s := w.Stats(); s.JournalSyncs > 1 {
		t.Errorf("20 groups written within the sync interval took %d fsyncs, want at most 1", s.JournalSyncs)
	}
	closeWriter(t, w, 10*time.Second)
	assertDelivered(t, store, a, r)
	// The sealed file's fsync does not wait out the hour: Close ends the
	// rest at once (Close does not wait for the syncer, hence the wait).
	testwait.Until(t, 10*time.Second, "the sealed journal file fsynced after close", func() bool { return w.Stats().JournalSyncs >= 2 })
	if s := w.Stats(); s.JournalErrors != 0 {
		t.Errorf("after close: %+v", s)
	}
}
