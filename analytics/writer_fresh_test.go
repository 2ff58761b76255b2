package analytics_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/analytics/analyticstest"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// TestWriterFirstTryIsFresh: with a healthy store that keeps up (no batch
// waits in the spill) every insert is a batch's first try, so every call
// goes through the FreshInserter.
func TestWriterFirstTryIsFresh(t *testing.T) {
	store := analyticstest.NewStore()
	cfg := fastConfig(t.TempDir())
	cfg.Pending = 1000 // never spilled: a spilled batch is replayed as possibly stored
	w := start(t, store, cfg)
	a, r := feed(w, 0, 1000)
	closeWriter(t, w, 5*time.Second)

	assertDelivered(t, store, a, r)
	if calls, fresh := store.Calls(), store.FreshCalls(); calls == 0 || fresh != calls {
		t.Errorf("%d of %d calls fresh, want all", fresh, calls)
	}
	if d := store.Duplicates(); d != 0 {
		t.Errorf("duplicates: %d", d)
	}
}

// feedRequests records n requests only, ids numbered from start.
func feedRequests(w *analytics.Writer, start, n int) []string {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	var ids []string
	for i := start; i < start+n; i++ {
		r := analytics.Request{EventID: fmt.Sprintf("r%06d", i), OrgID: "org", RequestID: fmt.Sprintf("req%06d", i),
			Time: t0.Add(time.Duration(i) * time.Millisecond), Status: 200}
		w.RecordRequest(r)
		ids = append(ids, r.EventID)
	}
	return ids
}

// TestWriterRetryChecksStoredIDs: the try after a failed first try goes
// through the store's idempotent methods, whether the failed call stored
// nothing or stored its rows before failing (a client timeout on an insert
// the server took): a row the store holds is never sent as fresh again.
func TestWriterRetryChecksStoredIDs(t *testing.T) {
	const rows = 300 // batches of 50 rows: 25 attempts and 25 requests, or 50 requests
	for _, tt := range []struct {
		name     string
		requests bool // feed requests only (else attempts and requests)
		fault    func(s *analyticstest.Store)
		dups     int // rows the retry finds stored
	}{
		{"attempts call failed", false, func(s *analyticstest.Store) { s.FailNext(1, errDown) }, 0},
		{"attempts call stored then failed", false,
			func(s *analyticstest.Store) { s.LandThenFailNext(1, context.DeadlineExceeded) }, 25},
		{"requests call stored then failed", true,
			func(s *analyticstest.Store) { s.LandThenFailNext(1, context.DeadlineExceeded) }, 50},
	} {
		t.Run(tt.name, func(t *testing.T) {
			store := analyticstest.NewStore()
			tt.fault(store)
			cfg := fastConfig(t.TempDir())
			cfg.MaxRetries, cfg.Pending = 100, 1000 // retried in memory, never spilled
			cfg.FlushInterval = time.Hour           // full batches only
			w := start(t, store, cfg)
			var a, r []string
			if tt.requests {
				r = feedRequests(w, 0, rows)
			} else {
				a, r = feed(w, 0, rows)
			}
			// Before Close: a failure while closing spills the batches.
			testwait.Until(t, 10*time.Second, "every row stored", func() bool {
				return len(store.Attempts()) == len(a) && len(store.Requests()) == len(r)
			})
			closeWriter(t, w, 5*time.Second)

			assertDelivered(t, store, a, r)
			if n := store.FreshDuplicates(); n != 0 {
				t.Errorf("%d stored rows sent again as fresh", n)
			}
			if d := store.Duplicates(); d != tt.dups {
				t.Errorf("duplicates: %d, want %d", d, tt.dups)
			}
			// One retry of one table's part of the first batch; every
			// other call is a first try.
			if checked := store.Calls() - store.FreshCalls(); checked != 1 {
				t.Errorf("%d calls through the idempotent path, want 1 (of %d)", checked, store.Calls())
			}
			if st := w.Stats(); st.Failures != 1 {
				t.Errorf("failures: %d, want 1", st.Failures)
			}
		})
	}
}

// TestWriterReplaysCheckStoredIDs: batches replayed from the spill, and
// from the journal a crashed process left, go through the store's
// idempotent methods: their rows may be stored already.
func TestWriterReplaysCheckStoredIDs(t *testing.T) {
	t.Run("spill", func(t *testing.T) {
		store := analyticstest.NewStore()
		store.FailWith(errDown)
		w := start(t, store, fastConfig(t.TempDir()))
		a, r := feed(w, 0, 300)
		testwait.Until(t, 10*time.Second, "every row spilled", func() bool {
			s := w.Stats()
			return s.Queued == 0 && s.Segments > 0
		})
		freshWhileDown := store.FreshCalls()
		store.FailWith(nil)
		w.Retry()
		closeWriter(t, w, 5*time.Second)

		assertDelivered(t, store, a, r)
		if n := store.FreshCalls(); n != freshWhileDown {
			t.Errorf("%d fresh calls replaying the spill", n-freshWhileDown)
		}
	})
	t.Run("journal", func(t *testing.T) {
		store := analyticstest.NewStore()
		// The first call stores its rows and fails; the retry waits an
		// hour, so the batch stays in memory, journaled.
		store.LandThenFailNext(1, context.DeadlineExceeded)
		dir := t.TempDir()
		cfg := journalConfig(dir)
		cfg.RetryBase, cfg.RetryMax, cfg.MaxRetries = time.Hour, time.Hour, 1000
		w := start(t, store, cfg)
		a, r := feed(w, 0, 50) // one batch of 100 rows: attempts, then requests
		testwait.Until(t, 10*time.Second, "the first try landed", func() bool { return len(store.Attempts()) == 50 })
		testwait.Until(t, 10*time.Second, "the first try failed", func() bool { return w.Stats().Failures == 1 })
		crashed := snapshot(t, dir)
		if len(journals(t, crashed)) == 0 {
			t.Fatal("no journal at the crash")
		}
		// The crashed process sleeps out its hour-long backoff; closing it
		// would wake it to retry, so it is stopped only after the checks.
		t.Cleanup(func() {
			gone, cancel := context.WithCancel(context.Background())
			cancel()
			_ = w.Close(gone)
		})

		next := start(t, store, fastConfig(crashed))
		closeWriter(t, next, 10*time.Second)
		assertDelivered(t, store, a, r)
		if n := store.FreshDuplicates(); n != 0 {
			t.Errorf("%d stored rows of the journal sent as fresh", n)
		}
		if d := store.Duplicates(); d != 50 {
			t.Errorf("duplicates: %d, want the 50 attempts the first try stored", d)
		}
		if left := slices.Concat(journals(t, crashed), segments(t, crashed)); len(left) != 0 {
			t.Errorf("files left after replay: %v", left)
		}
	})
}
