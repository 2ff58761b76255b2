package dispatch

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/internal/testwait"
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
	release, err := c.acquire(ctx, "k", "org", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Fatalf("a free slot was reported: %v", got)
	}
	if _, err := c.acquire(ctx, "k", "org", 0); !errors.Is(err, ErrOverloaded) {
		t.Fatalf("full cap: %v, want ErrOverloaded", err)
	}
	c.wait = time.Minute
	done := make(chan error, 1)
	go func() {
		r, err := c.acquire(ctx, "k", "org", 0)
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

// TestCapsRoundRobinBetweenTenants: when a key's cap binds, freed slots go to
// the waiting tenants in turn (FIFO within each), so one tenant's queue of
// many cannot starve another's single waiter.
func TestCapsRoundRobinBetweenTenants(t *testing.T) {
	c := newCaps(1, time.Minute, SystemClock{})
	ctx := context.Background()
	release, err := c.acquire(ctx, "k", "a", 0)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []string
	got := make(chan func(), 8)
	enqueue := func(tenant string) {
		before := c.waiting("k")
		go func() {
			r, err := c.acquire(ctx, "k", tenant, 0)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, tenant)
			mu.Unlock()
			got <- r
		}()
		testwait.Until(t, 10*time.Second, tenant+" queued", func() bool { return c.waiting("k") > before })
	}
	for _, tenant := range []string{"a", "a", "a", "b", "c"} {
		enqueue(tenant)
	}
	release()
	for range 5 {
		(<-got)()
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"a", "b", "c", "a", "a"}
	if len(order) != len(want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("order %v, want %v", order, want)
		}
	}
	if n := len(c.slots); n != 0 {
		t.Errorf("%d keys left after every slot was released", n)
	}
}

// TestCapsLimitPerKey: the limit given with acquire applies to its key; a
// raised limit admits waiters at once, and a timed-out waiter leaves no trace.
func TestCapsLimitPerKey(t *testing.T) {
	c := newCaps(1, 20*time.Millisecond, SystemClock{})
	ctx := context.Background()
	r1, err := c.acquire(ctx, "org-big", "", 2)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := c.acquire(ctx, "org-big", "", 2)
	if err != nil {
		t.Fatalf("second slot of a limit of 2: %v", err)
	}
	if _, err := c.acquire(ctx, "org-big", "", 2); !errors.Is(err, ErrOverloaded) {
		t.Fatalf("third slot of a limit of 2: %v, want ErrOverloaded", err)
	}
	if c.waiting("org-big") != 0 {
		t.Fatal("a timed-out waiter stayed queued")
	}
	r3, err := c.acquire(ctx, "org-small", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.acquire(ctx, "org-small", "", 0); !errors.Is(err, ErrOverloaded) {
		t.Fatalf("default limit 1: %v, want ErrOverloaded", err)
	}
	r4, err := c.acquire(ctx, "org-big", "", 3) // raised
	if err != nil {
		t.Fatalf("raised limit: %v", err)
	}
	for _, r := range []func(){r1, r2, r3, r4} {
		r()
	}
	if n := len(c.slots); n != 0 {
		t.Errorf("%d keys left after every slot was released", n)
	}
}
