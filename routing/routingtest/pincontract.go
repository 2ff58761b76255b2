package routingtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/routing"
)

// OpenPinStore opens a fresh, empty store reading time from now.
type OpenPinStore func(t *testing.T, now func() time.Time) routing.PinStore

// PinStoreContract runs the behaviour every routing.PinStore must show:
// round trip of every field, overwrite, isolation by each key field, sliding
// expiry, the default TTL, key validation and concurrent use.
func PinStoreContract(t *testing.T, open OpenPinStore) {
	ctx := context.Background()
	base := routing.PinKey{OrgID: "org_a", KeyID: "key_a", User: "alice", Session: "sess-1", Role: "main"}
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	pin := routing.Pin{Model: "claude-sonnet-4-5", Turns: 3, LastInputTokens: 41234,
		Created: t0.Add(-10 * time.Minute), Updated: t0.Add(-time.Minute)}

	t.Run("missing", func(t *testing.T) {
		s := open(t, NewClock(t0).Now)
		got, ok, err := s.Get(ctx, base)
		if err != nil || ok || got != (routing.Pin{}) {
			t.Fatalf("Get on empty store = %+v, %v, %v; want zero, false, nil", got, ok, err)
		}
	})

	t.Run("round trip and overwrite", func(t *testing.T) {
		s := open(t, NewClock(t0).Now)
		mustPut(t, s, base, pin, time.Hour)
		if got := mustGet(t, s, base); !samePin(got, pin) {
			t.Fatalf("Get = %+v, want %+v", got, pin)
		}
		next := pin.Advance("claude-sonnet-4-5", 50000, t0)
		mustPut(t, s, base, next, time.Hour)
		if got := mustGet(t, s, base); !samePin(got, next) || got.Turns != 4 || got.LastInputTokens != 50000 {
			t.Fatalf("after overwrite Get = %+v, want %+v (4 turns, 50000 tokens)", got, next)
		}
	})

	t.Run("isolation by every key field", func(t *testing.T) {
		s := open(t, NewClock(t0).Now)
		mustPut(t, s, base, pin, time.Hour)
		variants := map[string]routing.PinKey{
			"org":     {OrgID: "org_b", KeyID: base.KeyID, User: base.User, Session: base.Session, Role: base.Role},
			"key":     {OrgID: base.OrgID, KeyID: "key_b", User: base.User, Session: base.Session, Role: base.Role},
			"user":    {OrgID: base.OrgID, KeyID: base.KeyID, User: "bob", Session: base.Session, Role: base.Role},
			"no user": {OrgID: base.OrgID, KeyID: base.KeyID, User: "", Session: base.Session, Role: base.Role},
			"session": {OrgID: base.OrgID, KeyID: base.KeyID, User: base.User, Session: "sess-2", Role: base.Role},
			"role":    {OrgID: base.OrgID, KeyID: base.KeyID, User: base.User, Session: base.Session, Role: "sub_agent:01"},
			// Field boundaries must not blur: "alice"+"sess-1" vs "alicesess-1"+"".
			"shifted": {OrgID: base.OrgID, KeyID: base.KeyID, User: "alicesess-1", Session: "x", Role: base.Role},
		}
		for name, k := range variants {
			if _, ok, err := s.Get(ctx, k); err != nil || ok {
				t.Fatalf("%s variant sees the base pin (ok=%v err=%v)", name, ok, err)
			}
			other := routing.Pin{Model: "model-" + name, Turns: 1, Created: t0, Updated: t0}
			mustPut(t, s, k, other, time.Hour)
			if got := mustGet(t, s, k); got.Model != other.Model {
				t.Fatalf("%s variant Get = %+v, want model %s", name, got, other.Model)
			}
		}
		if got := mustGet(t, s, base); !samePin(got, pin) {
			t.Fatalf("base pin changed by variants: %+v", got)
		}
	})

	t.Run("sliding expiry", func(t *testing.T) {
		clock := NewClock(t0)
		s := open(t, clock.Now)
		mustPut(t, s, base, pin, time.Hour)
		clock.Advance(59 * time.Minute)
		mustGet(t, s, base)
		mustPut(t, s, base, pin, time.Hour) // the next turn slides the expiry
		clock.Advance(59 * time.Minute)
		mustGet(t, s, base)
		clock.Advance(2 * time.Minute)
		if _, ok, err := s.Get(ctx, base); err != nil || ok {
			t.Fatalf("pin alive 61 minutes after its last Put (ok=%v err=%v)", ok, err)
		}
		mustPut(t, s, base, pin, time.Hour) // an expired pin can be written again
		mustGet(t, s, base)
	})

	t.Run("default ttl", func(t *testing.T) {
		clock := NewClock(t0)
		s := open(t, clock.Now)
		mustPut(t, s, base, pin, 0)
		clock.Advance(routing.DefaultPinTTL - time.Second)
		mustGet(t, s, base)
		clock.Advance(2 * time.Second)
		if _, ok, _ := s.Get(ctx, base); ok {
			t.Fatal("pin alive past DefaultPinTTL")
		}
	})

	t.Run("invalid keys", func(t *testing.T) {
		s := open(t, NewClock(t0).Now)
		for _, k := range []routing.PinKey{
			{KeyID: "k", Session: "s", Role: "main"}, {OrgID: "o", Session: "s", Role: "main"},
			{OrgID: "o", KeyID: "k", Role: "main"}, {OrgID: "o", KeyID: "k", Session: "s"},
		} {
			if err := s.Put(ctx, k, pin, time.Hour); !errors.Is(err, routing.ErrPinKey) {
				t.Fatalf("Put(%+v) = %v, want ErrPinKey", k, err)
			}
			if _, _, err := s.Get(ctx, k); !errors.Is(err, routing.ErrPinKey) {
				t.Fatalf("Get(%+v) = %v, want ErrPinKey", k, err)
			}
		}
	})

	t.Run("concurrent", func(t *testing.T) {
		s := open(t, NewClock(t0).Now)
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				k := base
				k.Session = fmt.Sprintf("sess-%d", i%4)
				k.User = fmt.Sprintf("user-%d", i)
				for turn := range 5 {
					p := routing.Pin{Model: "m", Turns: turn + 1, Created: t0, Updated: t0}
					if err := s.Put(ctx, k, p, time.Hour); err != nil {
						errs <- err
						return
					}
					if got, ok, err := s.Get(ctx, k); err != nil || !ok || got.Turns != turn+1 {
						errs <- fmt.Errorf("Get after Put: %+v %v %v", got, ok, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	})
}

func mustPut(t *testing.T, s routing.PinStore, k routing.PinKey, p routing.Pin, ttl time.Duration) {
	t.Helper()
	if err := s.Put(context.Background(), k, p, ttl); err != nil {
		t.Fatalf("Put(%+v): %v", k, err)
	}
}

func mustGet(t *testing.T, s routing.PinStore, k routing.PinKey) routing.Pin {
	t.Helper()
	p, ok, err := s.Get(context.Background(), k)
	if err != nil || !ok {
		t.Fatalf("Get(%+v) = %v, %v; want a pin", k, ok, err)
	}
	return p
}

// samePin compares pins at the millisecond precision stores keep.
func samePin(a, b routing.Pin) bool {
	return a.Model == b.Model && a.Turns == b.Turns && a.LastInputTokens == b.LastInputTokens &&
		a.Created.UnixMilli() == b.Created.UnixMilli() && a.Updated.UnixMilli() == b.Updated.UnixMilli()
}
