package billing

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultSpendStaleAfter is how old a replica's view of the shared spend
// may get (its last successful read-back) before checks read the store
// directly, failing closed when it cannot be read.
const DefaultSpendStaleAfter = 30 * time.Second

// spendIdleAfter is how long a counter nobody checked stays in the view by
// default.
const spendIdleAfter = 10 * time.Minute

// SpendBufferConfig configures a SpendBuffer.
type SpendBufferConfig struct {
	// StaleAfter bounds the age of the view Spent serves from memory; zero
	// means DefaultSpendStaleAfter.
	StaleAfter time.Duration
	// IdleAfter is how long a counter nobody checked stays in the view (and
	// is read back by every Sync); zero means 10 minutes. Short-lived
	// counters (rate-limit minutes) drop sooner.
	IdleAfter time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// SpendBuffer is a SpendStore that keeps the request path off the database.
// Add sums costs in memory; Sync (every interval, from Run) writes them to
// the store it wraps (in a few calls when the store is a ManyAdder, else
// one Add per scope and period) and reads back every counter this replica
// checks, in one batch when the store is a SpentManyReader. Spent answers
// from that view plus this replica's unwritten amounts, so its own costs
// count at once and other replicas' within two sync intervals (theirs to
// write, ours to read back). The first check of a counter, and any check
// once the view is older than StaleAfter, reads the store, and a failed
// read fails closed; every check fails closed once this replica's writes
// have failed for longer than StaleAfter (a store that still answers
// reads). A failed write stays pending for the next Sync; what is still
// pending when the process dies is lost, so Close flushes. Safe for
// concurrent use.
type SpendBuffer struct {
	store      SpendStore
	staleAfter time.Duration
	idleAfter  time.Duration
	now        func() time.Time

	mu sync.Mutex
	// pending holds amounts not yet handed to the store; writing holds
	// those a Flush is writing now (still counted by Spent).
	pending, writing map[spendSlot]int64
	// views holds the stored amount of every counter Spent was asked for.
	views map[spendSlot]*spendView
	// unwrittenSince is when a write to the store first failed since the
	// last Flush that wrote everything (zero: none failing).
	unwrittenSince time.Time
	flushMu        sync.Mutex // one Flush or Sync at a time
}

type spendSlot struct {
	scope string
	start int64 // period start, Unix seconds (UTC)
}

// spendView is a counter's stored amount as this replica knows it: read
// at readAt (zero: not read yet), plus what this replica wrote since.
type spendView struct {
	stored  int64
	flushed int64 // written by this replica since the view was created
	readAt  time.Time
	usedAt  time.Time
}

var _ SpendStore = (*SpendBuffer)(nil)

// SpentManyReader is an optional ability of a SpendStore: the spending of
// many scopes of one period in one call (missing scopes spent nothing).
type SpentManyReader interface {
	SpentMany(ctx context.Context, periodStart time.Time, scopes []string) (map[string]int64, error)
}

// SpendAdd is one counter's amount for ManyAdder.AddMany.
type SpendAdd struct {
	Scope       string
	PeriodStart time.Time
	Micros      int64
}

// ManyAdder is an optional ability of a SpendStore: many Adds in a few
// calls. AddMany applies adds (no two with the same scope and period) in
// order, in chunks, and returns how many of them, counted from the first,
// were applied when it stopped at an error (all of them when the error is
// nil). A store that applies part of a chunk moves the applied adds of
// adds[n:] to its front first, so adds[n:] is exactly what was not
// applied.
type ManyAdder interface {
	AddMany(ctx context.Context, adds []SpendAdd) (int, error)
}

// NewSpendBuffer returns a buffer in front of store.
func NewSpendBuffer(store SpendStore, cfg SpendBufferConfig) *SpendBuffer {
	if cfg.StaleAfter <= 0 {
		cfg.StaleAfter = DefaultSpendStaleAfter
	}
	if cfg.IdleAfter <= 0 {
		cfg.IdleAfter = spendIdleAfter
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &SpendBuffer{store: store, staleAfter: cfg.StaleAfter, idleAfter: cfg.IdleAfter, now: cfg.Now,
		pending: map[spendSlot]int64{}, writing: map[spendSlot]int64{}, views: map[spendSlot]*spendView{}}
}

// Spent is the stored amount (from the view while it is fresh, else read
// now) plus this replica's unwritten amount. It never under-counts: an
// amount a Flush writes while the store is read is added to what was read
// (when the read saw it too, it counts twice until the next Sync: an
// over-count, which only fails closed).
func (b *SpendBuffer) Spent(ctx context.Context, scope string, periodStart time.Time) (int64, error) {
	return b.check(ctx, scope, periodStart, nil)
}

// AddBelow adds amount to scope's counter if its total (as Spent counts
// it) is below limit, the check and the add in one step under the
// buffer's lock, so concurrent callers never both take the last unit. It
// returns the total before the add and whether it added. The store read a
// first (or stale) check needs runs before that step, holding no lock.
func (b *SpendBuffer) AddBelow(ctx context.Context, scope string, periodStart time.Time, limit, amount int64) (int64, bool, error) {
	slot := spendSlot{scope, periodStart.Unix()}
	added := false
	total, err := b.check(ctx, scope, periodStart, func(total int64) {
		if total < limit {
			b.pending[slot] += amount
			added = true
		}
	})
	return total, added, err
}

// check is Spent; apply, when not nil, runs with the total under b.mu
// (no store call is made while it holds the lock).
func (b *SpendBuffer) check(ctx context.Context, scope string, periodStart time.Time, apply func(total int64)) (int64, error) {
	slot := spendSlot{scope, periodStart.Unix()}
	now := b.now()
	b.mu.Lock()
	if since := b.unwrittenSince; !since.IsZero() && now.Sub(since) > b.staleAfter {
		// The store refuses this replica's writes while it may still answer
		// reads: the other replicas have not seen its amounts since then.
		b.mu.Unlock()
		return 0, fmt.Errorf("%w: this replica's amounts not written since %s", ErrBudgetUnavailable, since.Format(time.RFC3339))
	}
	local := b.pending[slot] + b.writing[slot]
	v := b.views[slot]
	if v != nil && !v.readAt.IsZero() && now.Sub(v.readAt) <= b.staleAfter {
		v.usedAt = now
		total := v.stored + local
		if apply != nil {
			apply(total)
		}
		b.mu.Unlock()
		return total, nil
	}
	if v == nil {
		v = &spendView{}
		b.views[slot] = v
	}
	flushed0 := v.flushed
	b.mu.Unlock()

	stored, err := b.store.Spent(ctx, scope, periodStart)
	if err != nil {
		// A view never read is neither read back nor dropped by Sync: do
		// not keep one for a counter whose first read failed.
		b.mu.Lock()
		if v.readAt.IsZero() && b.views[slot] == v {
			delete(b.views, slot)
		}
		b.mu.Unlock()
		return 0, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	v.stored = stored + v.flushed - flushed0
	v.readAt, v.usedAt = now, now
	total := v.stored + b.pending[slot] + b.writing[slot]
	if apply != nil {
		apply(total)
	}
	return total, nil
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
	return b.flush(ctx)
}

func (b *SpendBuffer) flush(ctx context.Context) error {
	b.mu.Lock()
	b.pending, b.writing = map[spendSlot]int64{}, b.pending
	batch := b.writing
	b.mu.Unlock()
	failed, errs := b.write(ctx, batch)
	b.mu.Lock()
	for slot, micros := range batch {
		if _, ok := failed[slot]; ok {
			b.pending[slot] += micros
		} else if v := b.views[slot]; v != nil {
			// Moved from writing to stored in one step: Spent sees it once.
			v.stored += micros
			v.flushed += micros
		}
	}
	b.writing = map[spendSlot]int64{}
	if len(failed) == 0 {
		b.unwrittenSince = time.Time{}
	} else if b.unwrittenSince.IsZero() {
		b.unwrittenSince = b.now()
	}
	b.mu.Unlock()
	if len(errs) > 0 {
		return fmt.Errorf("%w: writing %d of %d spend counters: %w", ErrBudgetUnavailable, len(failed), len(batch), errors.Join(errs...))
	}
	return nil
}

// write hands batch to the store, in few calls when it is a ManyAdder
// (sorted by period and scope, so replicas writing at once take a
// database's row locks in one order), else one Add per counter. It
// returns the counters whose write failed.
func (b *SpendBuffer) write(ctx context.Context, batch map[spendSlot]int64) (map[spendSlot]int64, []error) {
	failed := map[spendSlot]int64{}
	if len(batch) == 0 {
		return failed, nil
	}
	if m, ok := b.store.(ManyAdder); ok {
		slots := make([]spendSlot, 0, len(batch))
		for slot := range batch {
			slots = append(slots, slot)
		}
		slices.SortFunc(slots, func(x, y spendSlot) int {
			return cmp.Or(cmp.Compare(x.start, y.start), strings.Compare(x.scope, y.scope))
		})
		adds := make([]SpendAdd, len(slots))
		for i, slot := range slots {
			adds[i] = SpendAdd{Scope: slot.scope, PeriodStart: time.Unix(slot.start, 0).UTC(), Micros: batch[slot]}
		}
		n, err := m.AddMany(ctx, adds)
		if err == nil && n < len(adds) {
			err = fmt.Errorf("store wrote %d of %d counters", n, len(adds))
		}
		if err == nil {
			return failed, nil
		}
		for _, a := range adds[max(0, min(n, len(adds))):] {
			slot := spendSlot{a.Scope, a.PeriodStart.Unix()}
			failed[slot] = batch[slot]
		}
		return failed, []error{err}
	}
	var errs []error
	for slot, micros := range batch {
		if err := b.store.Add(ctx, slot.scope, time.Unix(slot.start, 0).UTC(), micros); err != nil {
			failed[slot] = micros
			errs = append(errs, fmt.Errorf("%s: %w", slot.scope, err))
		}
	}
	return failed, errs
}

// Sync flushes, then reads back every counter in the view (dropping those
// nobody checked for IdleAfter). A counter whose read fails keeps its
// older view, which Spent stops trusting after StaleAfter.
func (b *SpendBuffer) Sync(ctx context.Context) error {
	b.flushMu.Lock()
	defer b.flushMu.Unlock()
	ferr := b.flush(ctx)
	now := b.now()
	b.mu.Lock()
	byStart := map[int64][]string{}
	for slot, v := range b.views {
		if v.readAt.IsZero() {
			continue // its first read is in flight
		}
		if now.Sub(v.usedAt) > b.idleAfter && b.pending[slot] == 0 {
			delete(b.views, slot)
			continue
		}
		byStart[slot.start] = append(byStart[slot.start], slot.scope)
	}
	b.mu.Unlock()
	var errs []error
	for start, scopes := range byStart {
		got, err := b.readMany(ctx, time.Unix(start, 0).UTC(), scopes)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		b.mu.Lock()
		for _, scope := range scopes {
			if v := b.views[spendSlot{scope, start}]; v != nil {
				// No flush runs during Sync: what was read is all that was written.
				v.stored, v.readAt = got[scope], now
			}
		}
		b.mu.Unlock()
	}
	if len(errs) > 0 {
		errs = append([]error{fmt.Errorf("%w: reading back spend", ErrBudgetUnavailable)}, errs...)
	}
	return errors.Join(append([]error{ferr}, errs...)...)
}

// readMany reads scopes of one period, in one call when the store can.
func (b *SpendBuffer) readMany(ctx context.Context, start time.Time, scopes []string) (map[string]int64, error) {
	if r, ok := b.store.(SpentManyReader); ok {
		return r.SpentMany(ctx, start, scopes)
	}
	out := make(map[string]int64, len(scopes))
	for _, s := range scopes {
		n, err := b.store.Spent(ctx, s, start)
		if err != nil {
			return nil, err
		}
		out[s] = n
	}
	return out, nil
}

// Run syncs every interval until ctx is done, then flushes once more and
// returns. Each sync has its own deadline (timeout) and is not cancelled
// by ctx: stopping Run lets a sync in flight finish. report receives sync
// errors (nil drops them). Close flushes what is added after Run returned.
func (b *SpendBuffer) Run(ctx context.Context, interval time.Duration, timeout time.Duration, report func(error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	do := func(f func(context.Context) error) {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		defer cancel()
		if err := f(fctx); err != nil && report != nil {
			report(err)
		}
	}
	for {
		select {
		case <-ctx.Done():
			do(b.Flush)
			return
		case <-t.C:
			do(b.Sync)
		}
	}
}

// Close flushes what is pending (call it after the server has stopped).
func (b *SpendBuffer) Close(ctx context.Context) error { return b.Flush(ctx) }
