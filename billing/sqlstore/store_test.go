package sqlstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/billing/sqlstore"
	"github.com/heddle-gw/heddle/internal/testdb"
)

func TestSpentAndAdd(t *testing.T) {
	day := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	next := day.AddDate(0, 0, 1)
	eachDB(t, 1, func(t *testing.T, dbs []*gorm.DB) {
		ctx := context.Background()
		s := sqlstore.New(dbs[0])
		steps := []struct {
			name  string
			scope string
			start time.Time
			add   int64
			want  int64
		}{
			{"unknown scope reads zero", "key:k1/day", day, 0, 0},
			{"first add creates the row", "key:k1/day", day, 1500, 1500},
			{"second add increments", "key:k1/day", day, 2500, 4000},
			{"another period is separate", "key:k1/day", next, 7, 7},
			{"another scope is separate", "org:o1/day", day, 9, 9},
			{"a large amount", "org:o1/month", day, 1 << 40, 1 << 40},
			{"the first row kept its total", "key:k1/day", day, 0, 4000},
		}
		for _, st := range steps {
			if st.add != 0 {
				if err := s.Add(ctx, st.scope, st.start, st.add); err != nil {
					t.Fatalf("%s: Add: %v", st.name, err)
				}
			}
			got, err := s.Spent(ctx, st.scope, st.start)
			if err != nil || got != st.want {
				t.Fatalf("%s: Spent = %d, %v; want %d", st.name, got, err, st.want)
			}
		}
		var rows int64
		if err := dbs[0].Table("budget_spend").Count(&rows).Error; err != nil || rows != 4 {
			t.Fatalf("rows = %d (%v), want 4", rows, err)
		}
	})
}

// TestConcurrentAddsAcrossReplicas: 8 goroutines x 100 Adds, split over two
// database handles standing for two replicas, sum exactly.
func TestConcurrentAddsAcrossReplicas(t *testing.T) {
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	eachDB(t, 2, func(t *testing.T, dbs []*gorm.DB) {
		ctx := context.Background()
		replicas := []*sqlstore.Store{sqlstore.New(dbs[0]), sqlstore.New(dbs[1])}
		var wg sync.WaitGroup
		errs := make(chan error, 8*100)
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := replicas[g%2]
				for i := range 100 {
					if err := s.Add(ctx, "org:o1/month", start, int64(i+1)); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("Add: %v", err)
		}
		const want = 8 * (100 * 101 / 2)
		for i, s := range replicas {
			got, err := s.Spent(ctx, "org:o1/month", start)
			if err != nil || got != want {
				t.Fatalf("replica %d reads %d (%v), want %d", i, got, err, want)
			}
		}
	})
}

// TestBudgetsOverTheStore runs the billing service on the real store: a hard
// daily budget blocks once recorded spending reaches it, on either replica.
func TestBudgetsOverTheStore(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	eachDB(t, 2, func(t *testing.T, dbs []*gorm.DB) {
		ctx := context.Background()
		a := billing.NewBudgets(sqlstore.New(dbs[0]), billing.BudgetsConfig{})
		b := billing.NewBudgets(sqlstore.New(dbs[1]), billing.BudgetsConfig{})
		budgets := billing.KeyBudgets("k1", 1000, 100000, true)
		if _, err := a.Check(ctx, budgets, now); err != nil {
			t.Fatalf("fresh key: %v", err)
		}
		if err := a.Record(ctx, budgets, 600, now); err != nil {
			t.Fatal(err)
		}
		if err := b.Record(ctx, budgets, 400, now); err != nil {
			t.Fatal(err)
		}
		_, err := a.Check(ctx, budgets, now)
		var be *billing.BudgetError
		if !errors.As(err, &be) || be.SpentMicros != 1000 || be.Period != billing.Day ||
			!be.ResetAt.Equal(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)) {
			t.Fatalf("after 1000 of 1000: %v", err)
		}
		v, err := b.Check(ctx, budgets, now.Add(12*time.Hour))
		if err != nil || len(v.Checked) != 2 || v.Checked[0].SpentMicros != 0 || v.Checked[1].SpentMicros != 1000 {
			t.Fatalf("next day: %+v, %v", v, err)
		}
	})
}

// TestClosedDatabaseFailsClosed: a store that cannot answer makes the check
// fail with ErrBudgetUnavailable.
func TestClosedDatabaseFailsClosed(t *testing.T) {
	db := testdb.SQLite(t).DB
	sqlDB, _ := db.DB()
	sqlDB.Close()
	b := billing.NewBudgets(sqlstore.New(db), billing.BudgetsConfig{})
	if _, err := b.Check(context.Background(), billing.KeyBudgets("k1", 1, 0, true), time.Now()); !errors.Is(err, billing.ErrBudgetUnavailable) {
		t.Fatalf("Check on a closed database = %v", err)
	}
	if err := b.Record(context.Background(), billing.KeyBudgets("k1", 1, 0, true), 5, time.Now()); !errors.Is(err, billing.ErrBudgetUnavailable) {
		t.Fatalf("Record on a closed database = %v", err)
	}
}

// TestAddManyAcrossReplicas: two replicas each write the same 450 counters
// (more than one statement's worth) in one AddMany, four times at once,
// over counters that already hold amounts and in both tables: every
// amount counts once, on SQLite and Postgres.
func TestAddManyAcrossReplicas(t *testing.T) {
	start := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	eachDB(t, 2, func(t *testing.T, dbs []*gorm.DB) {
		ctx := context.Background()
		for _, pick := range []func(*gorm.DB) *sqlstore.Store{sqlstore.New, sqlstore.NewRateCounters} {
			replicas := []*sqlstore.Store{pick(dbs[0]), pick(dbs[1])}
			if err := replicas[0].Add(ctx, "s:7", start, 1000); err != nil {
				t.Fatal(err)
			}
			adds := make([]billing.SpendAdd, 450)
			for i := range adds {
				adds[i] = billing.SpendAdd{Scope: fmt.Sprintf("s:%d", i), PeriodStart: start, Micros: int64(i + 1)}
			}
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for g := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if n, err := replicas[g%2].AddMany(ctx, adds); err != nil || n != len(adds) {
						errs <- fmt.Errorf("AddMany wrote %d of %d: %w", n, len(adds), err)
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			scopes := make([]string, len(adds))
			for i := range adds {
				scopes[i] = adds[i].Scope
			}
			got, err := replicas[1].SpentMany(ctx, start, scopes)
			if err != nil || len(got) != len(adds) {
				t.Fatalf("SpentMany: %d counters, %v", len(got), err)
			}
			for i, a := range adds {
				want := 8 * a.Micros
				if i == 7 {
					want += 1000
				}
				if got[a.Scope] != want {
					t.Fatalf("%s = %d, want %d", a.Scope, got[a.Scope], want)
				}
			}
			if n, err := replicas[0].AddMany(ctx, nil); n != 0 || err != nil {
				t.Fatalf("AddMany of nothing = %d, %v", n, err)
			}
		}
	})
}
