package billing

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// downSpend is a SpendStore whose reads and writes fail while down is set,
// and only its writes while readOnly is.
type downSpend struct {
	down, readOnly bool
	n              map[string]int64
}

func (d *downSpend) Spent(_ context.Context, scope string, _ time.Time) (int64, error) {
	if d.down {
		return 0, errors.New("store down")
	}
	return d.n[scope], nil
}

func (d *downSpend) Add(_ context.Context, scope string, _ time.Time, micros int64) error {
	if d.down || d.readOnly {
		return errors.New("store down")
	}
	d.n[scope] += micros
	return nil
}

// TestSpendBufferFailedFirstReadsLeaveNoViews: while the store is down,
// every new counter's first read fails (closed); those counters must not
// stay in the view. Sync never reads back or drops a view that was never
// read, so each would otherwise be held for good: with one-minute rate
// windows, keys x minutes of the outage.
func TestSpendBufferFailedFirstReadsLeaveNoViews(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2026, 12, 2, 7, 0, 0, 0, time.UTC)
	store := &downSpend{down: true, n: map[string]int64{}}
	b := NewSpendBuffer(store, SpendBufferConfig{IdleAfter: 30 * time.Second, Now: func() time.Time { return clock }})
	for range 10 {
		start := clock.Truncate(time.Minute)
		for k := range 50 {
			if _, err := b.Spent(ctx, fmt.Sprintf("r:k%d", k), start); err == nil {
				t.Fatal("a first read over a store that is down succeeded")
			}
		}
		if err := b.Sync(ctx); err != nil {
			t.Fatalf("Sync with nothing to write or read back: %v", err)
		}
		clock = clock.Add(time.Minute)
	}
	store.down = false
	if err := b.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	n := len(b.views)
	b.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d views held after 10 minutes of failed first reads; want 0", n)
	}
	if got, err := b.Spent(ctx, "r:k1", clock.Truncate(time.Minute)); err != nil || got != 0 {
		t.Fatalf("Spent once the store is back = %d, %v", got, err)
	}
}

// TestSpendBufferFailsClosedWhenWritesFail: a store that answers reads but
// refuses writes (a Postgres out of disk or read-only after a failover, a
// Redis at maxmemory) keeps every read-back fresh while no other replica
// sees this one's amounts; once its writes have failed for longer than
// StaleAfter, Spent refuses as it does when reads fail, and answers again
// once a write goes through.
func TestSpendBufferFailsClosedWhenWritesFail(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2026, 12, 2, 7, 0, 10, 0, time.UTC)
	start := clock.Truncate(time.Minute)
	store := &downSpend{n: map[string]int64{}}
	at := func() time.Time { return clock }
	b1 := NewSpendBuffer(store, SpendBufferConfig{StaleAfter: 30 * time.Second, Now: at})
	b2 := NewSpendBuffer(store, SpendBufferConfig{StaleAfter: 30 * time.Second, Now: at})
	for _, b := range []*SpendBuffer{b1, b2} {
		if n, err := b.Spent(ctx, "r:k1", start); err != nil || n != 0 {
			t.Fatalf("first Spent = %d, %v", n, err)
		}
	}
	store.readOnly = true
	_ = b1.Add(ctx, "r:k1", start, 5)
	if err := b1.Sync(ctx); !errors.Is(err, ErrBudgetUnavailable) {
		t.Fatalf("Sync with writes refused = %v; want ErrBudgetUnavailable", err)
	}
	clock = clock.Add(30 * time.Second)
	if n, err := b1.Spent(ctx, "r:k1", start); err != nil || n != 5 {
		t.Fatalf("within the bound: Spent = %d, %v; want its own 5", n, err)
	}
	clock = clock.Add(time.Second)
	if err := b1.Sync(ctx); err == nil {
		t.Fatal("Sync with writes refused succeeded")
	}
	if err := b2.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := b2.Spent(ctx, "r:k1", start); err != nil || n != 0 {
		t.Fatalf("replica 2 = %d, %v; want 0 (replica 1 wrote nothing)", n, err)
	}
	if n, err := b1.Spent(ctx, "r:k1", start); !errors.Is(err, ErrBudgetUnavailable) {
		t.Fatalf("writes refused for 31 s: Spent = %d, %v; want ErrBudgetUnavailable (its amounts are invisible to the other replicas)", n, err)
	}
	store.readOnly = false
	if err := errors.Join(b1.Sync(ctx), b2.Sync(ctx)); err != nil {
		t.Fatal(err)
	}
	for i, b := range []*SpendBuffer{b1, b2} {
		if n, err := b.Spent(ctx, "r:k1", start); err != nil || n != 5 {
			t.Fatalf("replica %d once writes go through = %d, %v; want 5", i+1, n, err)
		}
	}
}
