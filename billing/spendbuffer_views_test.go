package billing

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// downSpend is a SpendStore whose reads fail while down is set.
type downSpend struct {
	down bool
	n    map[string]int64
}

func (d *downSpend) Spent(_ context.Context, scope string, _ time.Time) (int64, error) {
	if d.down {
		return 0, errors.New("store down")
	}
	return d.n[scope], nil
}

func (d *downSpend) Add(_ context.Context, scope string, _ time.Time, micros int64) error {
	if d.down {
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
