package dispatch

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// waitSignal is the system clock, signalling every Now call (caps only reads
// the time when a slot was not free at once).
type waitSignal struct {
	SystemClock
	waiting chan struct{}
}

func (c *waitSignal) Now() time.Time {
	c.waiting <- struct{}{}
	return time.Now()
}

// TestCapWaitReportsOnlySlowAcquires: a slot taken at once reports nothing;
// a wait that ends in ErrOverloaded or in a freed slot is reported with its
// outcome, and the executor tags the two caps' reports with their scope.
func TestCapWaitReportsOnlySlowAcquires(t *testing.T) {
	type report struct {
		waited   time.Duration
		acquired bool
	}
	var mu sync.Mutex
	var got []report
	clock := &waitSignal{waiting: make(chan struct{}, 4)}
	c := newCaps(1, 20*time.Millisecond, clock)
	c.waited = func(d time.Duration, ok bool) {
		mu.Lock()
		got = append(got, report{d, ok})
		mu.Unlock()
	}
	ctx := context.Background()
	release, err := c.acquire(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Fatalf("a free slot was reported: %v", got)
	}
	if _, err := c.acquire(ctx, "k"); !errors.Is(err, ErrOverloaded) {
		t.Fatalf("full cap: %v, want ErrOverloaded", err)
	}
	c.wait = time.Minute
	done := make(chan error, 1)
	go func() {
		r, err := c.acquire(ctx, "k")
		if err == nil {
			r()
		}
		done <- err
	}()
	<-clock.waiting // the overloaded wait's start
	<-clock.waiting // its end
	<-clock.waiting // the waiter's start: it is in the slow path now
	release()
	if err := <-done; err != nil {
		t.Fatalf("waiter: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0].acquired || got[0].waited < 20*time.Millisecond || !got[1].acquired || got[1].waited <= 0 {
		t.Fatalf("reports %+v, want an overloaded wait of >= 20ms, then an acquired wait", got)
	}

	var scopes []string
	e := NewExecutor(Config{}, Deps{CapWait: func(scope string, _ time.Duration, _ bool) { scopes = append(scopes, scope) }})
	e.orgCaps.waited(time.Millisecond, true)
	e.bindCaps.waited(time.Millisecond, false)
	if len(scopes) != 2 || scopes[0] != "org" || scopes[1] != "binding" {
		t.Fatalf("scopes %v", scopes)
	}
}
