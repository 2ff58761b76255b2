package sqlstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/credits/sqlstore"
	"github.com/heddle-gw/heddle/internal/testdb"
)

// TestRefundStaleConcurrently: operators posting the refund of one stale
// debit at once (different amounts) add one refund between them, never
// more than the debit, and every other post gets that refund back.
func TestRefundStaleConcurrently(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		addOrg(t, d.DB, "org_a")
		now := time.Now().UTC()
		svc := credits.NewService(sqlstore.New(d.DB), credits.Config{Now: func() time.Time { return now }})
		if _, _, err := svc.Credit(ctx, credits.CreditInput{OrgID: "org_a", Kind: credits.KindGrant, AmountMicros: 10_000, Actor: "op"}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Reserve(ctx, "org_a", "req-a", 800); err != nil {
			t.Fatal(err)
		}
		now = now.Add(credits.StaleAfter + time.Minute)
		if n, _, err := svc.SettleStale(ctx); err != nil || n != 1 {
			t.Fatalf("stale holds settled: %d %v, want 1", n, err)
		}
		ds, err := svc.StaleDebits(ctx, credits.StaleQuery{})
		if err != nil || len(ds) != 1 {
			t.Fatalf("stale debits %+v %v", ds, err)
		}
		const posts = 8
		var wg sync.WaitGroup
		type outcome struct {
			e     *credits.Entry
			added bool
			err   error
		}
		outs := make([]outcome, posts)
		for i := range posts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				e, added, err := svc.RefundStale(ctx, ds[0].Debit.ID, int64(700+i*10), "op", "")
				outs[i] = outcome{e, added, err}
			}()
		}
		wg.Wait()
		var added []int64
		for i, o := range outs {
			if o.err != nil {
				t.Fatalf("post %d: %v", i, o.err)
			}
			if o.added {
				added = append(added, o.e.AmountMicros)
			}
		}
		if len(added) != 1 {
			t.Fatalf("refunds added %v, want exactly one", added)
		}
		for i, o := range outs {
			if o.e.AmountMicros != added[0] {
				t.Errorf("post %d answered a refund of %d, want the one added (%d)", i, o.e.AmountMicros, added[0])
			}
		}
		if acc, _ := svc.Account(ctx, "org_a"); acc.BalanceMicros != 10_000-800+added[0] {
			t.Fatalf("balance %d, want %d (one refund)", acc.BalanceMicros, 10_000-800+added[0])
		}
	})
}
