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
		if err := svc.Settle(ctx, r1, credits.Use{Micros: 250, Model: "m1", KeyID: "k1"}); err != nil {
			t.Fatal(err)
		}
		if err := svc.Settle(ctx, r1, credits.Use{Micros: 250, Model: "m1", KeyID: "k1"}); err != nil {
			t.Fatalf("a second settlement: %v", err)
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
		us, err := svc.Usage(ctx, "org_a", time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
		if err != nil || len(us) != 1 || us[0] != (credits.UsageRow{Model: "m1", KeyID: "k1", Requests: 1, Micros: 250}) {
			t.Fatalf("usage %+v err %v", us, err)
		}
		if us, _ := svc.Usage(ctx, "org_b", time.Now().Add(-time.Hour), time.Now().Add(time.Hour)); len(us) != 0 {
			t.Fatalf("org_b sees org_a's usage %+v", us)
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
				if err := svc.Settle(ctx, r, credits.Use{Micros: each, Model: "m", KeyID: "k"}); err != nil {
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

// TestBYOKFeeDebit: a BYOK fee is one debit of its amount per request
// (a second charge for the same request adds nothing); a zero fee (a plan
// without one) debits nothing.
func TestBYOKFeeDebit(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		addOrg(t, d.DB, "org_a")
		svc := credits.NewService(sqlstore.New(d.DB), credits.Config{})
		plan := &credits.Plan{BYOKFeeBP: 250}
		fee := plan.Fee(1_000_001) // 2.5% of $1.000001, rounded up: 25001
		for range 2 {
			if err := svc.ChargeFee(ctx, "org_a", "req-1", credits.Use{Micros: fee, Model: "gpt-5-mini", KeyID: "key_1"}); err != nil {
				t.Fatal(err)
			}
		}
		if err := svc.ChargeFee(ctx, "org_a", "req-2", credits.Use{Micros: (&credits.Plan{}).Fee(1_000_001), Model: "gpt-5-mini"}); err != nil {
			t.Fatal(err)
		}
		es, err := svc.Entries(ctx, "org_a", credits.EntryQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if fee != 25001 || len(es) != 1 || es[0].Kind != credits.KindDebit || es[0].AmountMicros != -fee || es[0].RequestID != "req-1" || es[0].KeyID != "key_1" {
			t.Fatalf("fee %d, entries %+v: want one debit of -25001 for req-1", fee, es)
		}
		if a, _ := svc.Account(ctx, "org_a"); a.BalanceMicros != -fee {
			t.Fatalf("balance %d, want %d", a.BalanceMicros, -fee)
		}
	})
}

// TestPlanDefaultsStored: a plan's default limits survive the store and a
// replace, read by another replica as the organisation's plan.
func TestPlanDefaultsStored(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		addOrg(t, d.DB, "org_a")
		a, b := credits.NewService(sqlstore.New(d.DB), credits.Config{}), credits.NewService(sqlstore.New(d.Reopen(t)), credits.Config{})
		known := func(string) bool { return true }
		in := credits.PlanInput{Name: "team", MultiplierBP: 10000, Defaults: credits.Limits{RPM: 60, TPM: 9000, MaxConcurrency: 3}}
		p, err := a.SavePlan(ctx, in, known)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.AssignPlan(ctx, "org_a", p.ID); err != nil {
			t.Fatal(err)
		}
		if got, err := b.OrgPlan(ctx, "org_a"); err != nil || got.Defaults != in.Defaults {
			t.Fatalf("org plan defaults %+v err %v, want %+v", got, err, in.Defaults)
		}
		in.ID, in.Defaults = p.ID, credits.Limits{RPM: 1}
		if _, err := b.SavePlan(ctx, in, known); err != nil {
			t.Fatal(err)
		}
		if got, err := a.OrgPlan(ctx, "org_a"); err != nil || got.Defaults != in.Defaults {
			t.Fatalf("replaced plan defaults %+v err %v, want %+v", got, err, in.Defaults)
		}
	})
}

// TestIncludedMonthlyCredit: a plan's included credit is granted once per
// UTC month, however many replicas read the plan, and again next month.
func TestIncludedMonthlyCredit(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		addOrg(t, d.DB, "org_a")
		now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
		clock := func() time.Time { return now }
		replicas := []*credits.Service{
			credits.NewService(sqlstore.New(d.DB), credits.Config{Now: clock}),
			credits.NewService(sqlstore.New(d.Reopen(t)), credits.Config{Now: clock}),
		}
		p, err := replicas[0].SavePlan(ctx, credits.PlanInput{Name: "inc", Providers: []string{"openai"}, MultiplierBP: 10000, IncludedMonthlyMicros: 2500},
			func(string) bool { return true })
		if err != nil {
			t.Fatal(err)
		}
		if err := replicas[0].AssignPlan(ctx, "org_a", p.ID); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			for _, r := range replicas {
				if got, err := r.OrgPlan(ctx, "org_a"); err != nil || got.ID != p.ID {
					t.Fatalf("org plan %+v %v", got, err)
				}
			}
		}
		if a, _ := replicas[1].Account(ctx, "org_a"); a.BalanceMicros != 2500 {
			t.Fatalf("balance %d after one month, want 2500", a.BalanceMicros)
		}
		now = now.AddDate(0, 1, 0)
		if _, err := replicas[1].OrgPlan(ctx, "org_a"); err != nil {
			t.Fatal(err)
		}
		if a, _ := replicas[0].Account(ctx, "org_a"); a.BalanceMicros != 5000 {
			t.Fatalf("balance %d after two months, want 5000", a.BalanceMicros)
		}
		if err := replicas[0].AssignPlan(ctx, "org_a", "plan_missing"); !errors.Is(err, credits.ErrNotFound) {
			t.Fatalf("unknown plan: %v", err)
		}
	})
}

// TestStatement: opening balance from earlier months, one line per
// credit entry, one usage line per day of debits, totals and closing.
func TestStatement(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		addOrg(t, d.DB, "org_a")
		store := sqlstore.New(d.DB)
		at := func(day, hour int) time.Time { return time.Date(2026, 11, day, hour, 0, 0, 0, time.UTC) }
		for i, e := range []credits.Entry{
			{Kind: credits.KindGrant, AmountMicros: 1000, CreatedAt: time.Date(2026, 10, 30, 0, 0, 0, 0, time.UTC), Reason: "october"},
			{Kind: credits.KindTopUp, AmountMicros: 5000, CreatedAt: at(1, 9), Reference: "inv-1", Reason: "paid"},
			{Kind: credits.KindDebit, AmountMicros: -30, CreatedAt: at(2, 9), RequestID: "r1"},
			{Kind: credits.KindDebit, AmountMicros: -20, CreatedAt: at(2, 10), RequestID: "r2"},
			{Kind: credits.KindDebit, AmountMicros: -50, CreatedAt: at(3, 10), RequestID: "r3"},
			{Kind: credits.KindAdjustment, AmountMicros: -100, CreatedAt: at(4, 10), Reason: "correction"},
			{Kind: credits.KindGrant, AmountMicros: 7, CreatedAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Reason: "december"},
		} {
			e.ID, e.OrgID, e.Actor = fmt.Sprintf("0000000%d", i), "org_a", "op"
			if _, _, err := store.Append(ctx, &e); err != nil {
				t.Fatal(err)
			}
		}
		st, err := credits.NewService(store, credits.Config{}).Statement(ctx, "org_a", time.Date(2026, 11, 15, 0, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		got := []string{}
		for _, l := range st.Lines {
			got = append(got, fmt.Sprintf("%s %s %d %d", l.Date.Format("01-02"), l.Kind, l.Requests, l.AmountMicros))
		}
		want := "[11-01 topup 0 5000 11-02 debit 2 -50 11-03 debit 1 -50 11-04 adjustment 0 -100]"
		if fmt.Sprint(got) != want || st.Opening != 1000 || st.Closing != 5800 || st.Totals[credits.KindDebit] != -100 || st.Totals[credits.KindTopUp] != 5000 {
			t.Fatalf("statement lines %v opening %d closing %d totals %v\nwant %s, 1000, 5800", got, st.Opening, st.Closing, st.Totals, want)
		}
	})
}

// TestStaleReservations: a hold older than StaleAfter is settled at its
// reservation (a call whose outcome was lost is never left unpaid), once:
// its call settling afterwards appends nothing, and a fresh hold is left
// alone.
func TestStaleReservations(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		addOrg(t, d.DB, "org_a")
		now := time.Now().UTC()
		clock := func() time.Time { return now }
		svc := credits.NewService(sqlstore.New(d.DB), credits.Config{Now: clock})
		if _, _, err := svc.Credit(ctx, credits.CreditInput{OrgID: "org_a", Kind: credits.KindGrant, AmountMicros: 1000, Actor: "op"}); err != nil {
			t.Fatal(err)
		}
		old, err := svc.Reserve(ctx, "org_a", "req-old", 800)
		if err != nil {
			t.Fatal(err)
		}
		if n, _, err := svc.SettleStale(ctx); err != nil || n != 0 {
			t.Fatalf("fresh hold settled: %d %v", n, err)
		}
		now = now.Add(credits.StaleAfter + time.Minute)
		fresh, err := svc.Reserve(ctx, "org_a", "req-new", 100)
		if err != nil {
			t.Fatal(err)
		}
		if n, micros, err := svc.SettleStale(ctx); err != nil || n != 1 || micros != 800 {
			t.Fatalf("stale holds settled: %d (%d micros) %v, want 1 (800)", n, micros, err)
		}
		if a, _ := svc.Account(ctx, "org_a"); a.ReservedMicros != 100 || a.BalanceMicros != 200 {
			t.Fatalf("account %+v after the sweep, want the fresh hold's 100 reserved and 200 left", a)
		}
		if err := svc.Settle(ctx, old, credits.Use{Micros: 300, Model: "m", KeyID: "k"}); err != nil {
			t.Fatal(err)
		}
		if err := svc.Settle(ctx, fresh, credits.Use{Micros: 50, Model: "m", KeyID: "k"}); err != nil {
			t.Fatal(err)
		}
		a, _ := svc.Account(ctx, "org_a")
		es, _ := svc.Entries(ctx, "org_a", credits.EntryQuery{})
		if a.BalanceMicros != 150 || a.ReservedMicros != 0 || len(es) != 3 {
			t.Fatalf("account %+v with %d entries, want balance 150, nothing reserved, a grant and two debits", a, len(es))
		}
		for _, e := range es {
			if e.RequestID == "req-old" && (e.AmountMicros != -800 || e.Reason != credits.StaleReason) {
				t.Errorf("the stale hold's debit %+v, want -800 for %q", e, credits.StaleReason)
			}
		}
	})
}
