package sqlstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/billing/billingtest"
	"github.com/heddle-gw/heddle/billing/sqlstore"
	"github.com/heddle-gw/heddle/internal/testdb"
)

// TestStoreSuite runs billing's store contract on SQLite and Postgres, with
// a fresh database for every subtest.
func TestStoreSuite(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		billingtest.StoreSuite(t, func(t *testing.T) billingtest.Store { return sqlstore.New(testdb.SQLite(t).DB) })
	})
	t.Run("postgres", func(t *testing.T) {
		billingtest.StoreSuite(t, func(t *testing.T) billingtest.Store { return sqlstore.New(testdb.Postgres(t).DB) })
	})
}

// TestOrgBudgetsAcrossReplicas: settings set through one replica's service
// are seen by another replica's at once when it has nothing cached, and
// within the TTL when it had; the org's spending (any key) blocks on both.
func TestOrgBudgetsAcrossReplicas(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	eachDB(t, 2, func(t *testing.T, dbs []*gorm.DB) {
		ctx := context.Background()
		clock := now
		cfg := billing.OrgBudgetsConfig{TTL: 5 * time.Second, Now: func() time.Time { return clock }}
		a := billing.NewOrgBudgets(sqlstore.New(dbs[0]), cfg)
		b := billing.NewOrgBudgets(sqlstore.New(dbs[1]), cfg)
		spendA := billing.NewBudgets(sqlstore.New(dbs[0]), billing.BudgetsConfig{})
		spendB := billing.NewBudgets(sqlstore.New(dbs[1]), billing.BudgetsConfig{})

		if got, err := b.Get(ctx, "o1"); err != nil || got != billing.NoOrgBudgets {
			t.Fatalf("replica b before any setting: %+v, %v", got, err)
		}
		set := billing.OrgBudgetSettings{Daily: billing.OrgLimit{LimitMicros: 100, Mode: billing.Hard}, Monthly: billing.OrgLimit{Mode: billing.Soft}}
		stored, err := a.Set(ctx, "o1", set)
		if err != nil || stored.Daily != set.Daily || stored.Monthly != set.Monthly || !stored.UpdatedAt.Equal(now) {
			t.Fatalf("Set = %+v, %v", stored, err)
		}
		if got, _ := b.Get(ctx, "o1"); got != billing.NoOrgBudgets {
			t.Fatalf("replica b within its TTL should still use its cached settings, got %+v", got)
		}
		clock = clock.Add(5 * time.Second)
		got, err := b.Get(ctx, "o1")
		if err != nil || got.Daily != set.Daily {
			t.Fatalf("replica b after the TTL: %+v, %v", got, err)
		}

		// Two keys of o1 spend 60 each, one per replica: the org's hard
		// daily budget of 100 is spent for every key, on both replicas.
		for i, sp := range []*billing.Budgets{spendA, spendB} {
			if err := sp.Record(ctx, billing.TurnScopes("o1", []string{"k1", "k2"}[i]), 60, now); err != nil {
				t.Fatal(err)
			}
		}
		for name, r := range map[string]*billing.OrgBudgets{"a": a, "b": b} {
			s, err := r.Get(ctx, "o1")
			if err != nil {
				t.Fatal(err)
			}
			_, err = spendB.Check(ctx, s.Budgets("o1"), now)
			var be *billing.BudgetError
			if !errors.As(err, &be) || be.Scope != "org:o1" || be.Period != billing.Day || be.SpentMicros != 120 {
				t.Fatalf("replica %s: Check = %v, want the org's day budget spent (120 of 100)", name, err)
			}
		}
		if s, _ := a.Get(ctx, "o2"); s != billing.NoOrgBudgets {
			t.Fatalf("o2 has budgets %+v", s)
		}
		if _, err := spendA.Check(ctx, billing.OrgBudgetSettings{Daily: billing.OrgLimit{LimitMicros: 100, Mode: billing.Hard}, Monthly: billing.OrgLimit{Mode: billing.Hard}}.Budgets("o2"), now); err != nil {
			t.Fatalf("o2 with the same limit but no spending: %v", err)
		}
	})
}

// TestBadRowsFailClosed: the schema refuses a negative limit and an unknown
// mode; a row that has one anyway (constraints bypassed) is an error, never
// "no budget".
func TestBadRowsFailClosed(t *testing.T) {
	db := testdb.SQLite(t).DB
	s := sqlstore.New(db)
	ctx := context.Background()
	if err := s.PutOrgBudgets(ctx, "o1", billing.OrgBudgetSettings{Daily: billing.OrgLimit{LimitMicros: 5, Mode: billing.Hard}, Monthly: billing.OrgLimit{Mode: billing.Hard}}); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		"UPDATE org_budgets SET daily_mode = 'loose' WHERE org_id = 'o1'",
		"UPDATE org_budgets SET monthly_limit_micros = -1 WHERE org_id = 'o1'",
	} {
		if err := db.Exec(stmt).Error; err == nil {
			t.Fatalf("the schema accepted %s", stmt)
		}
	}
	if got, err := s.GetOrgBudgets(ctx, "o1"); err != nil || got.Daily != (billing.OrgLimit{LimitMicros: 5, Mode: billing.Hard}) {
		t.Fatalf("valid row: %+v, %v", got, err)
	}
	err := db.Connection(func(tx *gorm.DB) error {
		if err := tx.Exec("PRAGMA ignore_check_constraints = ON").Error; err != nil {
			return err
		}
		defer tx.Exec("PRAGMA ignore_check_constraints = OFF")
		return tx.Exec("UPDATE org_budgets SET daily_mode = 'loose' WHERE org_id = 'o1'").Error
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.GetOrgBudgets(ctx, "o1")
	if !errors.Is(err, billing.ErrInvalidBudgetSettings) {
		t.Fatalf("row with mode 'loose': %+v, %v; want an error", got, err)
	}
	if _, err := billing.NewOrgBudgets(s, billing.OrgBudgetsConfig{}).Get(ctx, "o1"); !errors.Is(err, billing.ErrBudgetUnavailable) {
		t.Fatalf("OrgBudgets.Get over the bad row = %v, want ErrBudgetUnavailable", err)
	}
}
