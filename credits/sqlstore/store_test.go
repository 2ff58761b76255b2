package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/credits/sqlstore"
	"github.com/heddle-gw/heddle/internal/testdb"
)

func addOrg(t *testing.T, db *gorm.DB, id string) {
	t.Helper()
	now := time.Now().UTC()
	if err := db.Exec("INSERT INTO orgs (id, name, slug, created_at, updated_at) VALUES (?, ?, ?, ?, ?)", id, id, id, now, now).Error; err != nil {
		t.Fatal(err)
	}
}

func TestLedgerAppendIsIdempotentByReference(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		addOrg(t, d.DB, "org_a")
		svc := credits.NewService(sqlstore.New(d.DB), credits.Config{})
		in := credits.CreditInput{OrgID: "org_a", Kind: credits.KindTopUp, AmountMicros: 5_000_000, Actor: "op", Reference: "pay_1"}
		first, added, err := svc.Credit(ctx, in)
		if err != nil || !added {
			t.Fatalf("first top-up: added=%v err=%v", added, err)
		}
		again, added, err := svc.Credit(ctx, in)
		if err != nil || added || again.ID != first.ID {
			t.Fatalf("repeat top-up: added=%v id=%s want %s err=%v", added, again.ID, first.ID, err)
		}
		if _, _, err := svc.Credit(ctx, credits.CreditInput{OrgID: "org_a", Kind: credits.KindTopUp, AmountMicros: 1, Actor: "op"}); err == nil {
			t.Fatal("a top-up without a reference was accepted")
		}
		a, err := svc.Account(ctx, "org_a")
		if err != nil || a.BalanceMicros != 5_000_000 || a.ReservedMicros != 0 {
			t.Fatalf("account %+v err %v, want balance 5000000", a, err)
		}
	})
}

func TestReserveSettleRelease(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		addOrg(t, d.DB, "org_a")
		addOrg(t, d.DB, "org_b")
		store := sqlstore.New(d.DB)
		svc := credits.NewService(store, credits.Config{})
		if _, _, err := svc.Credit(ctx, credits.CreditInput{OrgID: "org_a", Kind: credits.KindGrant, AmountMicros: 1000, Actor: "op"}); err != nil {
			t.Fatal(err)
		}
		r1, err := svc.Reserve(ctx, "org_a", "req-1", 600)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Reserve(ctx, "org_a", "req-2", 600); !errors.Is(err, credits.ErrInsufficientCredits) {
			t.Fatalf("second reservation over the balance: %v, want ErrInsufficientCredits", err)
		}
		if _, err := svc.Reserve(ctx, "org_b", "req-3", 1); !errors.Is(err, credits.ErrInsufficientCredits) {
			t.Fatalf("org_b reserved against org_a's balance: %v", err)
		}
		// Another organisation cannot end org_a's reservation.
		if err := store.Release(ctx, "org_b", r1.ID); !errors.Is(err, credits.ErrNotFound) {
			t.Fatalf("cross-org release: %v, want ErrNotFound", err)
		}
		if err := svc.Settle(ctx, r1, 250, "test"); err != nil {
			t.Fatal(err)
		}
		if err := svc.Settle(ctx, r1, 250, "test"); err == nil {
			t.Fatal("a reservation settled twice")
		}
		r2, err := svc.Reserve(ctx, "org_a", "req-2", 700)
		if err != nil {
			t.Fatal(err)
		}
		if rs, _ := svc.Reservations(ctx, "org_a"); len(rs) != 1 || rs[0].ID != r2.ID {
			t.Fatalf("reservations in flight %+v, want only %s", rs, r2.ID)
		}
		if err := svc.Release(ctx, r2); err != nil {
			t.Fatal(err)
		}
		a, _ := svc.Account(ctx, "org_a")
		if a.BalanceMicros != 750 || a.ReservedMicros != 0 {
			t.Fatalf("account %+v, want balance 750 reserved 0", a)
		}
		es, err := svc.Entries(ctx, "org_a", credits.EntryQuery{})
		if err != nil || len(es) != 2 || es[0].Kind != credits.KindDebit || es[0].AmountMicros != -250 || es[0].RequestID != "req-1" {
			t.Fatalf("entries %+v err %v, want the debit of req-1 first", es, err)
		}
		if es, _ := svc.Entries(ctx, "org_b", credits.EntryQuery{}); len(es) != 0 {
			t.Fatalf("org_b sees %d of org_a's entries", len(es))
		}
	})
}

// TestConcurrentReservationsNeverOverdraw reserves from two database
// handles (two replicas) at once: the holds never exceed the balance, and
// after settlement the ledger's sum equals the balance.
func TestConcurrentReservationsNeverOverdraw(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		addOrg(t, d.DB, "org_a")
		dbs := []*gorm.DB{d.DB, d.Reopen(t)}
		svcs := []*credits.Service{credits.NewService(sqlstore.New(dbs[0]), credits.Config{}), credits.NewService(sqlstore.New(dbs[1]), credits.Config{})}
		if _, _, err := svcs[0].Credit(ctx, credits.CreditInput{OrgID: "org_a", Kind: credits.KindGrant, AmountMicros: 10_000, Actor: "op"}); err != nil {
			t.Fatal(err)
		}
		const n, each = 40, 1000
		var wg sync.WaitGroup
		var mu sync.Mutex
		held, refused := 0, 0
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				svc := svcs[i%2]
				r, err := svc.Reserve(ctx, "org_a", fmt.Sprintf("req-%d", i), each)
				mu.Lock()
				defer mu.Unlock()
				if errors.Is(err, credits.ErrInsufficientCredits) {
					refused++
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				held++
				if err := svc.Settle(ctx, r, each, "test"); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		a, err := svcs[1].Account(ctx, "org_a")
		if err != nil {
			t.Fatal(err)
		}
		sum, err := sqlstore.New(dbs[0]).BalanceAt(ctx, "org_a", time.Now().Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if held+refused != n || held > 10 || a.BalanceMicros < 0 || a.ReservedMicros != 0 || sum != a.BalanceMicros {
			t.Fatalf("held %d refused %d, account %+v, ledger sum %d: want at most 10 held, balance >= 0, sum == balance", held, refused, a, sum)
		}
		if held != 10 || a.BalanceMicros != 0 {
			t.Fatalf("held %d, balance %d: serialised settle-then-reserve should use the whole balance", held, a.BalanceMicros)
		}
	})
}
