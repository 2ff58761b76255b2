package billing_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/billing"
)

// gatedSpend is a SpendStore whose Add signals entered, then blocks until
// release is closed, and records the context error it saw when it returns.
type gatedSpend struct {
	memSpend
	entered chan struct{}
	release chan struct{}
	once    sync.Once
	errMu   sync.Mutex
	ctxErrs []error
}

func (g *gatedSpend) Add(ctx context.Context, scope string, start time.Time, micros int64) error {
	g.once.Do(func() { close(g.entered) })
	select {
	case <-g.release:
	case <-ctx.Done():
	}
	g.errMu.Lock()
	g.ctxErrs = append(g.ctxErrs, ctx.Err())
	g.errMu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	return g.memSpend.Add(ctx, scope, start, micros)
}

// TestSpendBufferRunStopLetsFlushFinish: stopping Run while a flush is
// writing does not cancel that write (it runs to its own deadline), and
// nothing is reported as failed.
func TestSpendBufferRunStopLetsFlushFinish(t *testing.T) {
	day := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	store := &gatedSpend{memSpend: memSpend{m: map[string]int64{}}, entered: make(chan struct{}), release: make(chan struct{})}
	buf := billing.NewSpendBuffer(store, billing.SpendBufferConfig{})
	_ = buf.Add(context.Background(), "org:o/day", day, 42)
	ctx, stop := context.WithCancel(context.Background())
	reported := make(chan error, 4)
	done := make(chan struct{})
	go func() {
		buf.Run(ctx, time.Millisecond, time.Hour, func(err error) { reported <- err })
		close(done)
	}()
	<-store.entered // a flush is writing
	stop()
	select {
	case <-done:
		t.Fatal("Run returned while its flush was still writing")
	default:
	}
	close(store.release)
	<-done
	select {
	case err := <-reported:
		t.Fatalf("a flush failed: %v", err)
	default:
	}
	store.errMu.Lock()
	defer store.errMu.Unlock()
	for _, err := range store.ctxErrs {
		if err != nil {
			t.Fatalf("the flush in flight saw its context end: %v", err)
		}
	}
	if got, _ := store.memSpend.Spent(context.Background(), "org:o/day", day); got != 42 {
		t.Fatalf("stored %d, want 42", got)
	}
}

// TestSpendBufferRunFinalFlush: what was added since the last tick is
// written when Run stops, before it returns.
func TestSpendBufferRunFinalFlush(t *testing.T) {
	day := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	store := &memSpend{m: map[string]int64{}}
	buf := billing.NewSpendBuffer(store, billing.SpendBufferConfig{})
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		buf.Run(ctx, time.Hour, time.Hour, func(err error) { t.Errorf("flush: %v", err) })
		close(done)
	}()
	_ = buf.Add(context.Background(), "org:o/day", day, 7)
	stop()
	<-done
	if got, _ := store.Spent(context.Background(), "org:o/day", day); got != 7 {
		t.Fatalf("stored %d after Run stopped, want 7", got)
	}
}
