package sqlstore_test

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/credits/sqlstore"
	"github.com/heddle-gw/heddle/internal/testdb"
	"github.com/heddle-gw/heddle/migrations"
)

// TestStaleDebits: the janitor's debits of stale holds are listed for
// operators across organisations, newest first and paged, with the
// organisation's name; other debits are not. A refund of one is recorded
// once (by its reference), bounded by the debited amount, and shown beside
// it; an id that is no stale debit is not found.
func TestStaleDebits(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		addOrg(t, d.DB, "org_a")
		addOrg(t, d.DB, "org_b")
		now := time.Now().UTC()
		svc := credits.NewService(sqlstore.New(d.DB), credits.Config{Now: func() time.Time { return now }})
		for _, org := range []string{"org_a", "org_b"} {
			if _, _, err := svc.Credit(ctx, credits.CreditInput{OrgID: org, Kind: credits.KindGrant, AmountMicros: 10_000, Actor: "op"}); err != nil {
				t.Fatal(err)
			}
		}
		settled, err := svc.Reserve(ctx, "org_a", "req-ok", 500)
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.Settle(ctx, settled, credits.Use{Micros: 300, Model: "m", KeyID: "k"}); err != nil {
			t.Fatal(err)
		}
		for _, h := range []struct {
			org, req string
			micros   int64
		}{{"org_a", "req-a", 800}, {"org_b", "req-b", 900}} {
			if _, err := svc.Reserve(ctx, h.org, h.req, h.micros); err != nil {
				t.Fatal(err)
			}
			now = now.Add(time.Second) // the second hold's debit is the newer
		}
		now = now.Add(credits.StaleAfter + time.Minute)
		if n, _, err := svc.SettleStale(ctx); err != nil || n != 2 {
			t.Fatalf("stale holds settled: %d %v, want 2", n, err)
		}
		ds, err := svc.StaleDebits(ctx, credits.StaleQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) != 2 || ds[0].Debit.OrgID != "org_b" || ds[0].OrgName != "org_b" || ds[0].Debit.AmountMicros != -900 ||
			ds[0].Debit.RequestID != "req-b" || ds[1].Debit.OrgID != "org_a" || ds[1].Debit.AmountMicros != -800 || ds[0].Refund != nil {
			t.Fatalf("stale debits %+v, want org_b's 900 then org_a's 800, unrefunded", ds)
		}
		page, err := svc.StaleDebits(ctx, credits.StaleQuery{Before: ds[0].Debit.ID, Limit: 1})
		if err != nil || len(page) != 1 || page[0].Debit.ID != ds[1].Debit.ID {
			t.Fatalf("the page after the first: %+v %v", page, err)
		}

		a := ds[1].Debit
		if _, _, err := svc.RefundStale(ctx, a.ID, 801, "op", ""); err == nil {
			t.Fatal("a refund above the debited amount was accepted")
		}
		if _, _, err := svc.RefundStale(ctx, "no-such-entry", 0, "op", ""); !errors.Is(err, credits.ErrNotFound) {
			t.Fatalf("refund of an unknown entry: %v, want ErrNotFound", err)
		}
		r, added, err := svc.RefundStale(ctx, a.ID, 500, "op", "the call never ran")
		if err != nil || !added || r.AmountMicros != 500 || r.RequestID != "req-a" || r.Kind != credits.KindRefund {
			t.Fatalf("refund %+v added=%v err=%v", r, added, err)
		}
		if again, added, err := svc.RefundStale(ctx, a.ID, 0, "op", ""); err != nil || added || again.ID != r.ID {
			t.Fatalf("second refund: %+v added=%v err=%v, want the first, not added", again, added, err)
		}
		ds, err = svc.StaleDebits(ctx, credits.StaleQuery{})
		if err != nil || ds[1].Refund == nil || ds[1].Refund.ID != r.ID || ds[0].Refund != nil {
			t.Fatalf("after the refund: %+v %v", ds, err)
		}
		if acc, _ := svc.Account(ctx, "org_a"); acc.BalanceMicros != 10_000-300-800+500 {
			t.Fatalf("org_a balance %d, want %d", acc.BalanceMicros, 10_000-300-800+500)
		}
	})
}

// TestStaleDebitsIndexMatchesTheReason: migration 01900's partial index
// names credits.StaleReason, so the list reads the index (SQLite's plan
// says so) rather than the ledger.
func TestStaleDebitsIndexMatchesTheReason(t *testing.T) {
	quoted := "'" + strings.ReplaceAll(credits.StaleReason, "'", "''") + "'"
	for _, dialect := range []migrations.Dialect{migrations.SQLite, migrations.Postgres} {
		fsys, err := migrations.AppFS(dialect)
		if err != nil {
			t.Fatal(err)
		}
		b, err := fs.ReadFile(fsys, "01900_stale_debits.sql")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "reason = "+quoted) {
			t.Errorf("%s: 01900 does not name the stale reason %s", dialect, quoted)
		}
	}
	d := testdb.SQLite(t)
	var plan []struct{ Detail string }
	if err := d.DB.Raw("EXPLAIN QUERY PLAN SELECT * FROM credit_ledger WHERE kind = 'debit' AND reason = " + quoted + " ORDER BY id DESC LIMIT 50").
		Scan(&plan).Error; err != nil {
		t.Fatal(err)
	}
	if len(plan) == 0 || !strings.Contains(plan[0].Detail, "credit_ledger_stale_idx") {
		t.Fatalf("query plan %+v, want the partial index", plan)
	}
}
