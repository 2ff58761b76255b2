package billing_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/billing/billingtest"
	"github.com/heddle-gw/heddle/internal/testwait"
)

func TestOrgBudgetSettingsValidate(t *testing.T) {
	ok := billing.OrgLimit{LimitMicros: 10, Mode: billing.Hard}
	tests := []struct {
		name  string
		s     billing.OrgBudgetSettings
		field string // "" means valid
	}{
		{"none", billing.NoOrgBudgets, ""},
		{"hard day, soft month", billing.OrgBudgetSettings{Daily: ok, Monthly: billing.OrgLimit{LimitMicros: 1 << 50, Mode: billing.Soft}}, ""},
		{"negative daily", billing.OrgBudgetSettings{Daily: billing.OrgLimit{LimitMicros: -1, Mode: billing.Hard}, Monthly: ok}, "daily_limit_micros"},
		{"negative monthly", billing.OrgBudgetSettings{Daily: ok, Monthly: billing.OrgLimit{LimitMicros: -5, Mode: billing.Soft}}, "monthly_limit_micros"},
		{"unknown daily mode", billing.OrgBudgetSettings{Daily: billing.OrgLimit{LimitMicros: 1, Mode: "HARD"}, Monthly: ok}, "daily_mode"},
		{"empty monthly mode", billing.OrgBudgetSettings{Daily: ok, Monthly: billing.OrgLimit{}}, "monthly_mode"},
		{"zero value", billing.OrgBudgetSettings{}, "daily_mode"},
		{"own concurrency cap", billing.OrgBudgetSettings{Daily: ok, Monthly: ok, MaxConcurrency: 600}, ""},
		{"negative concurrency cap", billing.OrgBudgetSettings{Daily: ok, Monthly: ok, MaxConcurrency: -1}, "max_concurrency"},
		{"concurrency cap too high", billing.OrgBudgetSettings{Daily: ok, Monthly: ok, MaxConcurrency: billing.MaxOrgConcurrency + 1}, "max_concurrency"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.Validate()
			if tt.field == "" {
				if err != nil {
					t.Fatalf("Validate = %v", err)
				}
				return
			}
			var fe *billing.FieldError
			if !errors.As(err, &fe) || fe.Field != tt.field || !errors.Is(err, billing.ErrInvalidBudgetSettings) {
				t.Fatalf("Validate = %v, want a field error on %s", err, tt.field)
			}
			if fe.Error() != fe.Field+" "+fe.Message || fe.Public() != fe.Error() {
				t.Fatalf("message %q", fe.Error())
			}
		})
	}
}

func TestOrgBudgetsAsBudgets(t *testing.T) {
	s := billing.OrgBudgetSettings{Daily: billing.OrgLimit{LimitMicros: 10, Mode: billing.Soft}, Monthly: billing.OrgLimit{LimitMicros: 300, Mode: billing.Hard}}
	got := s.Budgets("o1")
	want := []billing.Budget{
		{Scope: "org:o1", Period: billing.Day, LimitMicros: 10, Hard: false},
		{Scope: "org:o1", Period: billing.Month, LimitMicros: 300, Hard: true},
	}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("Budgets = %+v, want %+v", got, want)
	}
	scopes := billing.TurnScopes("o1", "k1")
	wantScopes := []billing.Budget{{Scope: "key:k1", Period: billing.Day}, {Scope: "key:k1", Period: billing.Month},
		{Scope: "org:o1", Period: billing.Day}, {Scope: "org:o1", Period: billing.Month}}
	if len(scopes) != 4 {
		t.Fatalf("TurnScopes = %+v", scopes)
	}
	for i := range wantScopes {
		if scopes[i] != wantScopes[i] {
			t.Fatalf("TurnScopes[%d] = %+v, want %+v", i, scopes[i], wantScopes[i])
		}
	}
}

// TestOrgSpendIsTheSumOfItsKeys: turns of two keys recorded with TurnScopes
// add up in the organisation's day budget, which blocks both keys; the keys'
// own counters stay apart.
func TestOrgSpendIsTheSumOfItsKeys(t *testing.T) {
	now := time.Date(2026, 11, 29, 15, 0, 0, 0, time.UTC)
	ctx := context.Background()
	b := billing.NewBudgets(billingtest.NewMemory(nil), billing.BudgetsConfig{})
	for key, cost := range map[string]int64{"k1": 40, "k2": 70} {
		if err := b.Record(ctx, billing.TurnScopes("o1", key), cost, now); err != nil {
			t.Fatal(err)
		}
	}
	org := billing.OrgBudgetSettings{Daily: billing.OrgLimit{LimitMicros: 100, Mode: billing.Hard}, Monthly: billing.OrgLimit{LimitMicros: 1000, Mode: billing.Soft}}
	_, err := b.Check(ctx, append(billing.KeyBudgets("k1", 50, 0, true), org.Budgets("o1")...), now)
	var be *billing.BudgetError
	if !errors.As(err, &be) || be.Scope != "org:o1" || be.Period != billing.Day || be.SpentMicros != 110 || be.LimitMicros != 100 {
		t.Fatalf("Check = %v, want the org's day budget (110 of 100)", err)
	}
	st, err := b.Usage(ctx, append(billing.TurnScopes("o1", "k1"), billing.KeyBudgets("k2", 0, 0, true)...), now)
	if err != nil || len(st) != 4 {
		t.Fatalf("Usage = %+v, %v", st, err)
	}
	for i, want := range []int64{40, 40, 110, 110} {
		if st[i].SpentMicros != want || !st[i].ResetAt.Equal(st[i].Budget.Period.End(now)) {
			t.Fatalf("Usage[%d] = %+v, want spent %d", i, st[i], want)
		}
	}
	// Soft: the same spending only reports.
	org.Daily.Mode = billing.Soft
	v, err := b.Check(ctx, org.Budgets("o1"), now)
	if err != nil || len(v.SoftExceeded) != 1 || v.SoftExceeded[0].Budget.Period != billing.Day {
		t.Fatalf("soft org budget: %+v, %v", v, err)
	}
}

func TestUsageFailsClosed(t *testing.T) {
	m := billingtest.NewMemory(nil)
	m.Fail(errors.New("db down"))
	b := billing.NewBudgets(m, billing.BudgetsConfig{})
	if _, err := b.Usage(context.Background(), billing.TurnScopes("o", "k"), time.Now()); !errors.Is(err, billing.ErrBudgetUnavailable) {
		t.Fatalf("Usage on a failing store = %v", err)
	}
	m.Fail(nil)
	if _, err := b.Usage(context.Background(), []billing.Budget{{Scope: "org:o", Period: "year"}}, time.Now()); !errors.Is(err, billing.ErrInvalidBudget) {
		t.Fatalf("Usage of a malformed budget = %v", err)
	}
}

func TestOrgBudgetsCache(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2026, 11, 29, 15, 0, 0, 0, time.UTC)
	store := billingtest.NewMemory(nil)
	o := billing.NewOrgBudgets(store, billing.OrgBudgetsConfig{TTL: 5 * time.Second, Now: func() time.Time { return clock }})
	hard := billing.OrgBudgetSettings{Daily: billing.OrgLimit{LimitMicros: 10, Mode: billing.Hard}, Monthly: billing.OrgLimit{Mode: billing.Hard}}

	if s, err := o.Get(ctx, "o1"); err != nil || s != billing.NoOrgBudgets {
		t.Fatalf("nothing set: %+v, %v", s, err)
	}
	// Written behind the service (another replica): not seen within the TTL.
	if err := store.PutOrgBudgets(ctx, "o1", hard); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(4 * time.Second)
	if s, _ := o.Get(ctx, "o1"); s != billing.NoOrgBudgets {
		t.Fatalf("within the TTL: %+v, want the cached settings", s)
	}
	if s, _ := o.Load(ctx, "o1"); s.Daily != hard.Daily {
		t.Fatalf("Load bypasses the cache: %+v", s)
	}
	clock = clock.Add(time.Second)
	if s, _ := o.Get(ctx, "o1"); s.Daily != hard.Daily {
		t.Fatalf("after the TTL: %+v", s)
	}

	// Set through the service: seen at once, stamped with the clock.
	soft := hard
	soft.Daily.Mode = billing.Soft
	stored, err := o.Set(ctx, "o1", soft)
	if err != nil || stored.Daily != soft.Daily || !stored.UpdatedAt.Equal(clock) {
		t.Fatalf("Set = %+v, %v", stored, err)
	}
	if s, _ := o.Get(ctx, "o1"); s.Daily.Mode != billing.Soft {
		t.Fatalf("Get right after Set: %+v", s)
	}

	// Invalid settings are refused and change nothing.
	bad := soft
	bad.Monthly.LimitMicros = -1
	if _, err := o.Set(ctx, "o1", bad); !errors.Is(err, billing.ErrInvalidBudgetSettings) {
		t.Fatalf("Set(invalid) = %v", err)
	}
	if s, _ := o.Load(ctx, "o1"); s.Monthly.LimitMicros != 0 {
		t.Fatalf("invalid settings were stored: %+v", s)
	}

	// A store error fails closed once the entry expired: never stale data.
	store.FailSettingsReads(errors.New("db down"))
	if _, err := o.Get(ctx, "o1"); err != nil {
		t.Fatalf("cached entry still valid: %v", err)
	}
	clock = clock.Add(6 * time.Second)
	if _, err := o.Get(ctx, "o1"); !errors.Is(err, billing.ErrBudgetUnavailable) {
		t.Fatalf("Get on a failing store = %v, want ErrBudgetUnavailable", err)
	}
	store.Fail(errors.New("db down"))
	if _, err := o.Set(ctx, "o1", hard); !errors.Is(err, billing.ErrBudgetUnavailable) {
		t.Fatalf("Set on a failing store = %v", err)
	}
}

// racingStore returns old settings for a read that overlaps an
// invalidation, to check that such a read is not cached.
type racingStore struct {
	*billingtest.Memory
	during func()
}

func (r racingStore) GetOrgBudgets(ctx context.Context, orgID string) (billing.OrgBudgetSettings, error) {
	s, err := r.Memory.GetOrgBudgets(ctx, orgID)
	if r.during != nil {
		r.during()
	}
	return s, err
}

func TestOrgBudgetsReadRacingAChangeIsNotCached(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2026, 11, 29, 15, 0, 0, 0, time.UTC)
	rs := &racingStore{Memory: billingtest.NewMemory(nil)}
	o := billing.NewOrgBudgets(rs, billing.OrgBudgetsConfig{Now: func() time.Time { return clock }})
	hard := billing.OrgBudgetSettings{Daily: billing.OrgLimit{LimitMicros: 10, Mode: billing.Hard}, Monthly: billing.OrgLimit{Mode: billing.Hard}}
	rs.during = func() {
		rs.during = nil
		if err := rs.Memory.PutOrgBudgets(ctx, "o1", hard); err != nil {
			t.Error(err)
		}
		o.Invalidate("o1")
	}
	if s, _ := o.Get(ctx, "o1"); s != billing.NoOrgBudgets {
		t.Fatalf("the racing read returns what it read: %+v", s)
	}
	if s, _ := o.Get(ctx, "o1"); s.Daily != hard.Daily {
		t.Fatalf("the racing read was cached: %+v", s)
	}
}

// gatedOrgStore counts GetOrgBudgets calls, each held until release closes.
type gatedOrgStore struct {
	*billingtest.Memory
	calls   atomic.Int64
	release chan struct{}
}

func (g *gatedOrgStore) GetOrgBudgets(ctx context.Context, orgID string) (billing.OrgBudgetSettings, error) {
	g.calls.Add(1)
	<-g.release
	return g.Memory.GetOrgBudgets(ctx, orgID)
}

// TestOrgBudgetsOneReadPerMiss: the requests of a busy organisation that
// all miss the cache at once share one store read.
func TestOrgBudgetsOneReadPerMiss(t *testing.T) {
	store := &gatedOrgStore{Memory: billingtest.NewMemory(nil), release: make(chan struct{})}
	o := billing.NewOrgBudgets(store, billing.OrgBudgetsConfig{})
	const n = 50
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := o.Get(context.Background(), "busy")
			errs <- err
		}()
	}
	testwait.Until(t, 10*time.Second, "the first read", func() bool { return store.calls.Load() >= 1 })
	close(store.release)
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	// Gets that arrived after the read finished may have read again; those
	// that overlapped it shared it.
	if c := store.calls.Load(); c >= n {
		t.Fatalf("%d concurrent misses made %d store reads, want them shared", n, c)
	}
}
