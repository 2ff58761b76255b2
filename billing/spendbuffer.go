package billing

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// SpendBuffer is a SpendStore that sums Adds in memory and writes them to the
// store it wraps on Flush (one Add per scope and period), so a busy key costs
// a few writes per flush instead of several per request. Spent adds what this
// replica has not written yet, so its own checks see every cost at once;
// other replicas see it after the next flush (Run's interval). A failed write
// stays pending and is retried by the next Flush; what is still pending when
// the process dies is lost, so Close flushes. Safe for concurrent use.
type SpendBuffer struct {
	store SpendStore

	mu sync.Mutex
	// pending holds amounts not yet handed to the store; writing holds
	// those a Flush is writing now (still counted by Spent).
	pending, writing map[spendSlot]int64
	flushMu          sync.Mutex // one Flush at a time
}

type spendSlot struct {
	scope string
	start int64 // period start, Unix seconds (UTC)
}

var _ SpendStore = (*SpendBuffer)(nil)

// NewSpendBuffer returns a buffer in front of store.
func NewSpendBuffer(store SpendStore) *SpendBuffer {
	return &SpendBuffer{store: store, pending: map[spendSlot]int64{}, writing: map[spendSlot]int64{}}
}

// Spent is the store's amount plus this replica's unwritten amount. The
// local amount is read first: a flush finishing in between is then counted
// twice (an over-count, which only fails closed), never missed.
func (b *SpendBuffer) Spent(ctx context.Context, scope string, periodStart time.Time) (int64, error) {
	slot := spendSlot{scope, periodStart.Unix()}
	b.mu.Lock()
	local := b.pending[slot] + b.writing[slot]
	b.mu.Unlock()
	stored, err := b.store.Spent(ctx, scope, periodStart)
	if err != nil {
		return 0, err
	}
	return stored + local, nil
}

// Add records micros in memory; it never blocks on the store and never fails.
func (b *SpendBuffer) Add(_ context.Context, scope string, periodStart time.Time, micros int64) error {
	b.mu.Lock()
	b.pending[spendSlot{scope, periodStart.Unix()}] += micros
	b.mu.Unlock()
	return nil
}

// Flush writes every pending amount to the store. Amounts whose write fails
// go back to pending; the errors are joined.
func (b *SpendBuffer) Flush(ctx context.Context) error {
	b.flushMu.Lock()
	defer b.flushMu.Unlock()
	b.mu.Lock()
	b.pending, b.writing = map[spendSlot]int64{}, b.pending
	batch := b.writing
	b.mu.Unlock()
	var errs []error
	failed := map[spendSlot]int64{}
	for slot, micros := range batch {
		if err := b.store.Add(ctx, slot.scope, time.Unix(slot.start, 0).UTC(), micros); err != nil {
			failed[slot] = micros
			errs = append(errs, fmt.Errorf("%s: %w", slot.scope, err))
		}
	}
	b.mu.Lock()
	for slot, micros := range failed {
		b.pending[slot] += micros
	}
	b.writing = map[spendSlot]int64{}
	b.mu.Unlock()
	if len(errs) > 0 {
		return fmt.Errorf("%w: writing %d of %d spend counters: %w", ErrBudgetUnavailable, len(failed), len(batch), errors.Join(errs...))
	}
	return nil
}

// Run flushes every interval until ctx is done, then flushes once more and
// returns. Each flush has its own deadline (timeout) and is not cancelled by
// ctx: stopping Run lets a flush in flight finish. report receives flush
// errors (nil drops them). Close flushes what is added after Run returned.
func (b *SpendBuffer) Run(ctx context.Context, interval time.Duration, timeout time.Duration, report func(error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	flush := func() {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		if err := b.Flush(fctx); err != nil && report != nil {
			report(err)
		}
	}
	for {
		select {
		case <-ctx.Done():
			flush()
			return
		case <-t.C:
			flush()
		}
	}
}

// Close flushes what is pending (call it after the server has stopped).
func (b *SpendBuffer) Close(ctx context.Context) error { return b.Flush(ctx) }
