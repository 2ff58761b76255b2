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

// flakyStore fails Add and AddMany (and, with readsDown, Spent and SpentMany) while
// down is set, and counts the reads that reach the real store.
type flakyStore struct {
	*sqlstore.Store
	down, readsDown atomic.Bool
	reads           atomic.Int64
}

var errDown = errors.New("store down")

func (f *flakyStore) Add(ctx context.Context, scope string, start time.Time, micros int64) error {
	if f.down.Load() {
		return errDown
	}
	return f.Store.Add(ctx, scope, start, micros)
}

func (f *flakyStore) AddMany(ctx context.Context, adds []billing.SpendAdd) (int, error) {
	if f.down.Load() {
		return 0, errDown
	}
	return f.Store.AddMany(ctx, adds)
}

func (f *flakyStore) Spent(ctx context.Context, scope string, start time.Time) (int64, error) {
	if f.readsDown.Load() {
		return 0, errDown
	}
	f.reads.Add(1)
	return f.Store.Spent(ctx, scope, start)
}

func (f *flakyStore) SpentMany(ctx context.Context, start time.Time, scopes []string) (map[string]int64, error) {
	if f.readsDown.Load() {
		return nil, errDown
	}
	f.reads.Add(1)
	return f.Store.SpentMany(ctx, start, scopes)
}

// TestSpendBuffer: two replicas' buffers over one database. A replica sees
// its own unwritten spend at once, the other's after that one's write and
// its own read-back (Sync), never twice; checks read the database only the
// first time; a failed write keeps the amount and the next one writes it.
func TestSpendBuffer(t *testing.T) {
	day := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	eachDB(t, 2, func(t *testing.T, dbs []*gorm.DB) {
		ctx := context.Background()
		fa, fb := &flakyStore{Store: sqlstore.New(dbs[0])}, &flakyStore{Store: sqlstore.New(dbs[1])}
		a, b := billing.NewSpendBuffer(fa, billing.SpendBufferConfig{}), billing.NewSpendBuffer(fb, billing.SpendBufferConfig{})
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
		if err := a.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		spent(a, 15, "replica A after its sync")
		spent(b, 0, "replica B after A's sync, before its own")
		if err := b.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		spent(b, 15, "replica B after both syncs")
		for range 100 {
			spent(b, 15, "replica B again")
		}
		if n := fb.reads.Load(); n != 2 {
			t.Errorf("replica B read the store %d times, want 2 (its first check and one read-back)", n)
		}

		fa.down.Store(true)
		_ = a.Add(ctx, "key:k/day", day, 7)
		err := a.Sync(ctx)
		if !errors.Is(err, billing.ErrBudgetUnavailable) || !errors.Is(err, errDown) {
			t.Fatalf("sync with the store down: %v", err)
		}
		spent(a, 22, "replica A with a failed write pending")
		_ = b.Sync(ctx)
		spent(b, 15, "replica B while A's write failed")
		fa.down.Store(false)
		if err := a.Close(ctx); err != nil {
			t.Fatal(err)
		}
		_ = b.Sync(ctx)
		spent(b, 22, "replica B after A's retry")
		spent(a, 22, "replica A after its retry")
	})
}

// TestSpendBufferStale: a view older than StaleAfter is not trusted: the
// check reads the store, and fails closed when it cannot.
func TestSpendBufferStale(t *testing.T) {
	day := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	eachDB(t, 1, func(t *testing.T, dbs []*gorm.DB) {
		ctx := context.Background()
		now := day.Add(time.Hour)
		var mu sync.Mutex
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
		f := &flakyStore{Store: sqlstore.New(dbs[0])}
		other := sqlstore.New(dbs[0]) // another replica's writes
		buf := billing.NewSpendBuffer(f, billing.SpendBufferConfig{StaleAfter: 10 * time.Second, Now: clock})
		if err := other.Add(ctx, "org:o/day", day, 40); err != nil {
			t.Fatal(err)
		}
		if got, err := buf.Spent(ctx, "org:o/day", day); err != nil || got != 40 {
			t.Fatalf("first check = %d, %v", got, err)
		}
		f.readsDown.Store(true)
		if err := buf.Sync(ctx); !errors.Is(err, billing.ErrBudgetUnavailable) {
			t.Fatalf("sync with reads down: %v", err)
		}
		advance(10 * time.Second)
		if got, err := buf.Spent(ctx, "org:o/day", day); err != nil || got != 40 {
			t.Fatalf("within the bound = %d, %v; want the view", got, err)
		}
		advance(time.Second)
		if _, err := buf.Spent(ctx, "org:o/day", day); !errors.Is(err, errDown) {
			t.Fatalf("past the bound with the store down: %v, want the read's error", err)
		}
		f.readsDown.Store(false)
		if err := other.Add(ctx, "org:o/day", day, 2); err != nil {
			t.Fatal(err)
		}
		if got, err := buf.Spent(ctx, "org:o/day", day); err != nil || got != 42 {
			t.Fatalf("past the bound with the store up = %d, %v; want a fresh read", got, err)
		}
	})
}

// TestSpendBufferConcurrent: adds racing flushes are all written exactly
// once.
func TestSpendBufferConcurrent(t *testing.T) {
	month := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	eachDB(t, 1, func(t *testing.T, dbs []*gorm.DB) {
		ctx := context.Background()
		store := sqlstore.New(dbs[0])
		buf := billing.NewSpendBuffer(store, billing.SpendBufferConfig{})
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
		buf = billing.NewSpendBuffer(store, billing.SpendBufferConfig{})
		_ = buf.Add(ctx, "org:o/day", day, 1_000_000)
		got, err := buf.Spent(ctx, "org:o/day", day)
		if err != nil || got < 1_000_000 {
			t.Fatalf("Spent = %d, %v during a flush; want at least 1000000", got, err)
		}
	})
}
