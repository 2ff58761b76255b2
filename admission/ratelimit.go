package admission

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/tenancy"
)

// rateIdleAfter drops a minute's counters from the view once nobody checked
// them for this long (a minute's counters are checked during that minute
// only).
const rateIdleAfter = 30 * time.Second

// rateSweepEvery is how often Run deletes past windows from a store that
// keeps them (the app database; Redis expires its own).
const rateSweepEvery = time.Minute

// rateSweepAge is how old a window must be before it is swept.
const rateSweepAge = 5 * time.Minute

// Sweeper is an optional ability of a rate-counter store that keeps past
// windows: Sweep deletes the counters of windows that started before
// before.
type Sweeper interface {
	Sweep(ctx context.Context, before time.Time) error
}

// RateStats is what RateCounters reports for metrics.
type RateStats struct {
	// LastSync is when the last sync with the shared store succeeded (zero:
	// none yet).
	LastSync time.Time
	// SyncFailures counts syncs that failed.
	SyncFailures int64
}

// RateCounters is the tenancy.KeyLimiter of N replicas without a store
// call per request: each replica counts its keys' requests and tokens per
// one-minute window in memory and, every sync interval (Run), adds them to
// the shared store (Redis when configured, else the app database) and reads
// back the totals of every counter it checks (billing.SpendBuffer does the
// buffering: one home for replica-local counters over a shared store).
//
// The bound: a replica's own requests count at once; another replica's
// within two sync intervals (theirs to write, ours to read back), so N
// replicas admit at most a key's rpm plus what the others admitted in the
// last two intervals. The first check of a key in a window reads the store
// (one call per key per minute); a check whose view is older than the stale
// bound reads the store too, and when that read fails the request is
// refused with tenancy.ErrLimiterUnavailable (fail closed). Safe for
// concurrent use.
type RateCounters struct {
	buf   *billing.SpendBuffer
	store billing.SpendStore

	lastSync atomic.Int64 // Unix nanoseconds
	failures atomic.Int64
}

var _ tenancy.KeyLimiter = (*RateCounters)(nil)

// NewRateCounters returns a limiter over store whose view may be staleAfter
// old before checks read the store (zero means
// billing.DefaultSpendStaleAfter). now nil means time.Now.
func NewRateCounters(store billing.SpendStore, staleAfter time.Duration, now func() time.Time) *RateCounters {
	return &RateCounters{
		buf:   billing.NewSpendBuffer(store, billing.SpendBufferConfig{StaleAfter: staleAfter, IdleAfter: rateIdleAfter, Now: now}),
		store: store,
	}
}

func requestsScope(keyID string) string { return "r:" + keyID }
func tokensScope(keyID string) string   { return "t:" + keyID }

func limiterUnavailable(err error) error {
	return fmt.Errorf("admission: rate counters: %w: %w", tenancy.ErrLimiterUnavailable, err)
}

// Allow counts a request unless keyID already made rpm in this window (as
// far as this replica knows); a refused request is not counted.
func (r *RateCounters) Allow(ctx context.Context, keyID string, rpm int, now time.Time) (bool, time.Duration, error) {
	if rpm <= 0 {
		return true, 0, nil
	}
	start, end := tenancy.MinuteWindow(now)
	// The check and the count are one step in the buffer, so two requests
	// of one replica never both take the last slot; a key's first check of
	// the minute reads the store before that step, holding no lock.
	_, ok, err := r.buf.AddBelow(ctx, requestsScope(keyID), start, int64(rpm), 1)
	if err != nil {
		return false, 0, limiterUnavailable(err)
	}
	if !ok {
		return false, end.Sub(now), nil
	}
	return true, 0, nil
}

// AddTokens counts tokens used by keyID in the window containing now; zero
// or less adds nothing. It never blocks on the store.
func (r *RateCounters) AddTokens(ctx context.Context, keyID string, tokens int, now time.Time) error {
	if tokens <= 0 {
		return nil
	}
	start, _ := tenancy.MinuteWindow(now)
	return r.buf.Add(ctx, tokensScope(keyID), start, int64(tokens))
}

// TokensOK reports whether keyID used fewer than tpm tokens in the window
// containing now; it counts nothing.
func (r *RateCounters) TokensOK(ctx context.Context, keyID string, tpm int, now time.Time) (bool, time.Duration, error) {
	if tpm <= 0 {
		return true, 0, nil
	}
	start, end := tenancy.MinuteWindow(now)
	n, err := r.buf.Spent(ctx, tokensScope(keyID), start)
	if err != nil {
		return false, 0, limiterUnavailable(err)
	}
	if n >= int64(tpm) {
		return false, end.Sub(now), nil
	}
	return true, 0, nil
}

// Sync adds this replica's counts to the store and reads back every counter
// it checks (Run calls it every interval; tests call it directly).
func (r *RateCounters) Sync(ctx context.Context) error {
	if err := r.buf.Sync(ctx); err != nil {
		r.failures.Add(1)
		return fmt.Errorf("admission: rate counters sync: %w", err)
	}
	r.lastSync.Store(time.Now().UnixNano())
	return nil
}

// Close adds what this replica counted since its last sync to the store
// (call it at shutdown, after the server stopped and before the store
// closes: Run's own last flush does not wait for it).
func (r *RateCounters) Close(ctx context.Context) error { return r.buf.Close(ctx) }

// Stats reports the last successful sync and the failed ones.
func (r *RateCounters) Stats() RateStats {
	s := RateStats{SyncFailures: r.failures.Load()}
	if ns := r.lastSync.Load(); ns != 0 {
		s.LastSync = time.Unix(0, ns)
	}
	return s
}

// Run syncs every interval until ctx is done, then flushes this replica's
// counts once more. Each sync has its own deadline (timeout); a store that
// keeps past windows (Sweeper) is swept once a minute. report receives
// sync and sweep errors (nil drops them).
func (r *RateCounters) Run(ctx context.Context, interval, timeout time.Duration, report func(error)) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	sweeper, _ := r.store.(Sweeper)
	lastSweep := time.Now()
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
			do(r.buf.Flush)
			return
		case now := <-tick.C:
			do(r.Sync)
			if sweeper != nil && now.Sub(lastSweep) >= rateSweepEvery {
				lastSweep = now
				do(func(ctx context.Context) error { return sweeper.Sweep(ctx, now.Add(-rateSweepAge)) })
			}
		}
	}
}
