package sqlstore_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/billing/sqlstore"
)

// flakyStore fails Add while down is set; reads and other writes go to the
// real store.
type flakyStore struct {
	billing.SpendStore
	down atomic.Bool
}

var errDown = errors.New("store down")

func (f *flakyStore) Add(ctx context.Context, scope string, start time.Time, micros int64) error {
	if f.down.Load() {
		return errDown
	}
	return f.SpendStore.Add(ctx, scope, start, micros)
}

// TestSpendBuffer: two replicas' buffers over one database. A replica sees
// its own unwritten spend at once, the other after a flush, never twice; a
// failed flush keeps the amount and the next one writes it.
func TestSpendBuffer(t *testing.T) {
	day := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	eachDB(t, 2, func(t *testing.T, dbs []*gorm.DB) {
		ctx := context.Background()
		flaky := &flakyStore{SpendStore: sqlstore.New(dbs[0])}
		a, b := billing.NewSpendBuffer(flaky), billing.NewSpendBuffer(sqlstore.New(dbs[1]))
		spent := func(buf *billing.SpendBuffer, want int64, when string) {
			t.Helper()
			if got, err := buf.Spent(ctx, "key:k/day", day); err != nil || got != want {
				t.Fatalf("%s: Spent = %d, %v; want %d", when, got, err, want)
			}
		}
		for _, m := range []int64{10, 5} {
			if err := a.Add(ctx, "key:k/day", day, m); err != nil {
				t.Fatal(err)
			}
		}
		spent(a, 15, "replica A before its flush")
		spent(b, 0, "replica B before A's flush")
		if err := a.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		spent(a, 15, "replica A after its flush")
		spent(b, 15, "replica B after A's flush")

		flaky.down.Store(true)
		_ = a.Add(ctx, "key:k/day", day, 7)
		err := a.Flush(ctx)
		if !errors.Is(err, billing.ErrBudgetUnavailable) || !errors.Is(err, errDown) {
			t.Fatalf("flush with the store down: %v", err)
		}
		spent(a, 22, "replica A with a failed flush pending")
		spent(b, 15, "replica B while A's write failed")
		flaky.down.Store(false)
		if err := a.Close(ctx); err != nil {
			t.Fatal(err)
		}
		spent(b, 22, "replica B after A's retry")
		spent(a, 22, "replica A after its retry")
	})
}

// TestSpendBufferConcurrent: adds racing flushes are all written exactly
// once.
func TestSpendBufferConcurrent(t *testing.T) {
	month := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	eachDB(t, 1, func(t *testing.T, dbs []*gorm.DB) {
		ctx := context.Background()
		store := sqlstore.New(dbs[0])
		buf := billing.NewSpendBuffer(store)
		runCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			// A flush's deadline is a safety net, not a timing assertion: on a
			// loaded machine a write may take seconds. Stopping Run does not
			// cancel a flush in flight.
			buf.Run(runCtx, time.Millisecond, time.Minute, func(err error) { t.Errorf("flush: %v", err) })
			close(done)
		}()
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 200 {
					_ = buf.Add(ctx, "org:o/month", month, 3)
				}
			}()
		}
		wg.Wait()
		stop()
		<-done
		if err := buf.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if got, err := store.Spent(ctx, "org:o/month", month); err != nil || got != 8*200*3 {
			t.Fatalf("stored %d, %v; want %d", got, err, 8*200*3)
		}
	})
}

// slowSpent runs a hook (a flush) after reading the store and before
// returning: the window in which a buffer that read its local amount after
// the store would miss the flushed amount.
type slowSpent struct {
	billing.SpendStore
	after func()
}

func (s slowSpent) Spent(ctx context.Context, scope string, start time.Time) (int64, error) {
	n, err := s.SpendStore.Spent(ctx, scope, start)
	s.after()
	return n, err
}

// TestSpendBufferNeverUndercounts: a flush that completes while Spent is
// reading does not make the amount disappear from the replica's own check.
func TestSpendBufferNeverUndercounts(t *testing.T) {
	day := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	eachDB(t, 1, func(t *testing.T, dbs []*gorm.DB) {
		ctx := context.Background()
		var buf *billing.SpendBuffer
		once := sync.Once{}
		store := slowSpent{SpendStore: sqlstore.New(dbs[0]), after: func() {
			once.Do(func() {
				if err := buf.Flush(ctx); err != nil {
					t.Error(err)
				}
			})
		}}
		buf = billing.NewSpendBuffer(store)
		_ = buf.Add(ctx, "org:o/day", day, 1_000_000)
		got, err := buf.Spent(ctx, "org:o/day", day)
		if err != nil || got < 1_000_000 {
			t.Fatalf("Spent = %d, %v during a flush; want at least 1000000", got, err)
		}
	})
}
