package billingtest

import (
	"context"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/billing"
)

// Store is what a billing adapter implements: spending counters and
// organisation budget settings.
type Store interface {
	billing.SpendStore
	billing.OrgBudgetStore
}

// StoreSuite is the contract of billing's stores. newStore returns a fresh,
// empty store for each subtest.
func StoreSuite(t *testing.T, newStore func(t *testing.T) Store) {
	t.Run("spend", func(t *testing.T) { testSpend(t, newStore(t)) })
	t.Run("org budgets", func(t *testing.T) { testOrgBudgets(t, newStore(t)) })
}

// base is a fixed instant at microsecond precision (what Postgres keeps).
var base = time.Date(2026, 11, 29, 10, 0, 0, 123456000, time.UTC)

func testSpend(t *testing.T, s Store) {
	ctx := context.Background()
	day := billing.Day.Start(base)
	if got, err := s.Spent(ctx, "org:o1/day", day); err != nil || got != 0 {
		t.Fatalf("never written: %d, %v; want 0, nil", got, err)
	}
	for _, add := range []int64{5, 7} {
		if err := s.Add(ctx, "org:o1/day", day, add); err != nil {
			t.Fatalf("Add: %v", err)
		}
	}
	if got, err := s.Spent(ctx, "org:o1/day", day); err != nil || got != 12 {
		t.Fatalf("after 5 + 7: %d, %v", got, err)
	}
	if got, _ := s.Spent(ctx, "org:o2/day", day); got != 0 {
		t.Fatalf("another organisation reads %d", got)
	}
	if got, _ := s.Spent(ctx, "org:o1/day", day.AddDate(0, 0, 1)); got != 0 {
		t.Fatalf("the next day reads %d", got)
	}
}

func testOrgBudgets(t *testing.T, s Store) {
	ctx := context.Background()
	got, err := s.GetOrgBudgets(ctx, "org_a")
	if err != nil || got != billing.NoOrgBudgets {
		t.Fatalf("never set: %+v, %v; want NoOrgBudgets", got, err)
	}
	steps := []struct {
		name string
		put  billing.OrgBudgetSettings
	}{
		{"hard day, soft month", billing.OrgBudgetSettings{
			Daily: billing.OrgLimit{LimitMicros: 1500, Mode: billing.Hard}, Monthly: billing.OrgLimit{LimitMicros: 90_000, Mode: billing.Soft}, MaxConcurrency: 600, UpdatedAt: base}},
		{"replaced: soft day, no month", billing.OrgBudgetSettings{
			Daily: billing.OrgLimit{LimitMicros: 1 << 50, Mode: billing.Soft}, Monthly: billing.OrgLimit{Mode: billing.Hard}, UpdatedAt: base.Add(time.Hour)}},
	}
	for _, st := range steps {
		if err := s.PutOrgBudgets(ctx, "org_a", st.put); err != nil {
			t.Fatalf("%s: put: %v", st.name, err)
		}
		got, err := s.GetOrgBudgets(ctx, "org_a")
		if err != nil || got.Daily != st.put.Daily || got.Monthly != st.put.Monthly || got.MaxConcurrency != st.put.MaxConcurrency || !got.UpdatedAt.Equal(st.put.UpdatedAt) {
			t.Fatalf("%s: got %+v, %v; want %+v", st.name, got, err, st.put)
		}
		if got.UpdatedAt.Location() != time.UTC {
			t.Fatalf("%s: UpdatedAt in %v, want UTC", st.name, got.UpdatedAt.Location())
		}
	}
	if got, err := s.GetOrgBudgets(ctx, "org_b"); err != nil || got != billing.NoOrgBudgets {
		t.Fatalf("org_b sees %+v, %v", got, err)
	}
	stamped := billing.OrgBudgetSettings{Daily: billing.OrgLimit{LimitMicros: 1, Mode: billing.Hard}, Monthly: billing.OrgLimit{Mode: billing.Soft}}
	if err := s.PutOrgBudgets(ctx, "org_b", stamped); err != nil {
		t.Fatal(err)
	}
	if got, err := s.GetOrgBudgets(ctx, "org_b"); err != nil || got.UpdatedAt.IsZero() || got.Daily != stamped.Daily || got.Monthly != stamped.Monthly {
		t.Fatalf("zero UpdatedAt: got %+v, %v; want it stamped", got, err)
	}
	if got, _ := s.GetOrgBudgets(ctx, "org_a"); got.Daily.LimitMicros != 1<<50 {
		t.Fatalf("org_b's put changed org_a: %+v", got)
	}
	if err := s.PutOrgBudgets(ctx, "", stamped); err == nil {
		t.Fatal("empty organisation id accepted")
	}
}
