package billing_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/billing"
)

// memSpend is an in-memory SpendStore that can be made to fail.
type memSpend struct {
	mu   sync.Mutex
	m    map[string]int64
	fail error
	adds int
}

func newMemSpend() *memSpend { return &memSpend{m: map[string]int64{}} }

func key(scope string, start time.Time) string { return fmt.Sprint(scope, "@", start.UnixMilli()) }

func (s *memSpend) Spent(_ context.Context, scope string, start time.Time) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return 0, s.fail
	}
	return s.m[key(scope, start)], nil
}

func (s *memSpend) Add(_ context.Context, scope string, start time.Time, micros int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	s.adds++
	s.m[key(scope, start)] += micros
	return nil
}

func TestPeriodBounds(t *testing.T) {
	at := time.Date(2026, 12, 31, 23, 59, 59, 0, time.FixedZone("x", -5*3600)) // 2027-01-01 04:59:59 UTC
	tests := []struct {
		p          billing.Period
		start, end time.Time
	}{
		{billing.Day, time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 2, 0, 0, 0, 0, time.UTC)},
		{billing.Month, time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(string(tt.p), func(t *testing.T) {
			if got := tt.p.Start(at); !got.Equal(tt.start) || got.Location() != time.UTC {
				t.Fatalf("Start = %v, want %v UTC", got, tt.start)
			}
			if got := tt.p.End(at); !got.Equal(tt.end) {
				t.Fatalf("End = %v, want %v", got, tt.end)
			}
		})
	}
}

func TestKeyBudgets(t *testing.T) {
	got := billing.KeyBudgets("k1", 500, 0, true)
	if len(got) != 1 || got[0] != (billing.Budget{Scope: "key:k1", Period: billing.Day, LimitMicros: 500, Hard: true}) {
		t.Fatalf("daily only = %+v", got)
	}
	got = billing.KeyBudgets("k1", 0, 9000, true)
	if len(got) != 1 || got[0] != (billing.Budget{Scope: "key:k1", Period: billing.Month, LimitMicros: 9000, Hard: true}) {
		t.Fatalf("monthly only = %+v", got)
	}
	if got = billing.KeyBudgets("k1", 0, 0, true); len(got) != 0 {
		t.Fatalf("no limits = %+v", got)
	}
	if billing.OrgScope("o1") != "org:o1" {
		t.Fatal(billing.OrgScope("o1"))
	}
}

func TestCheck(t *testing.T) {
	now := time.Date(2026, 11, 29, 15, 0, 0, 0, time.UTC)
	dayEnd := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	monthEnd := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	keyDay := billing.Budget{Scope: "key:k1", Period: billing.Day, LimitMicros: 1000, Hard: true}
	keyMonth := billing.Budget{Scope: "key:k1", Period: billing.Month, LimitMicros: 5000, Hard: true}
	orgSoft := billing.Budget{Scope: "org:o1", Period: billing.Month, LimitMicros: 2000}
	orgHard := billing.Budget{Scope: "org:o1", Period: billing.Day, LimitMicros: 3000, Hard: true}
	tests := []struct {
		name     string
		spend    int64 // recorded on every budget before the check
		budgets  []billing.Budget
		exceeded *billing.BudgetError
		checked  int
		soft     []string
	}{
		{"under every limit", 999, []billing.Budget{keyDay, keyMonth, orgSoft}, nil, 3, nil},
		{"hard day at its limit", 1000, []billing.Budget{keyDay, keyMonth},
			&billing.BudgetError{Scope: "key:k1", Period: billing.Day, LimitMicros: 1000, SpentMicros: 1000, ResetAt: dayEnd}, 2, nil},
		{"soft over does not block", 2500, []billing.Budget{orgSoft, keyMonth}, nil, 2, []string{"org:o1"}},
		{"soft and hard over: hard blocks, soft reported", 3000, []billing.Budget{orgSoft, keyMonth, orgHard},
			&billing.BudgetError{Scope: "org:o1", Period: billing.Day, LimitMicros: 3000, SpentMicros: 3000, ResetAt: dayEnd}, 3, []string{"org:o1"}},
		{"first hard one in order", 6000, []billing.Budget{keyMonth, keyDay},
			&billing.BudgetError{Scope: "key:k1", Period: billing.Month, LimitMicros: 5000, SpentMicros: 6000, ResetAt: monthEnd}, 2, nil},
		{"zero limit ignored", 1 << 40, []billing.Budget{{Scope: "key:k1", Period: billing.Day, Hard: true}}, nil, 0, nil},
		{"no budgets", 0, nil, nil, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			b := billing.NewBudgets(newMemSpend(), billing.BudgetsConfig{})
			if err := b.Record(ctx, tt.budgets, tt.spend, now); err != nil {
				t.Fatal(err)
			}
			v, err := b.Check(ctx, tt.budgets, now)
			if tt.exceeded == nil {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
			} else {
				var be *billing.BudgetError
				if !errors.As(err, &be) || !errors.Is(err, billing.ErrBudgetExceeded) {
					t.Fatalf("Check error = %v, want a *BudgetError", err)
				}
				if *be != *tt.exceeded {
					t.Fatalf("BudgetError = %+v, want %+v", *be, *tt.exceeded)
				}
			}
			if len(v.Checked) != tt.checked {
				t.Fatalf("checked %d budgets, want %d: %+v", len(v.Checked), tt.checked, v.Checked)
			}
			for _, st := range v.Checked {
				if st.SpentMicros != tt.spend || !st.ResetAt.Equal(st.Budget.Period.End(now)) {
					t.Fatalf("status %+v, want spent %d", st, tt.spend)
				}
			}
			var soft []string
			for _, st := range v.SoftExceeded {
				if st.Budget.Hard {
					t.Fatalf("hard budget listed as soft: %+v", st)
				}
				soft = append(soft, st.Budget.Scope)
			}
			if fmt.Sprint(soft) != fmt.Sprint(tt.soft) {
				t.Fatalf("soft exceeded %v, want %v", soft, tt.soft)
			}
		})
	}
}

func TestCheckFailsClosed(t *testing.T) {
	now := time.Date(2026, 11, 29, 15, 0, 0, 0, time.UTC)
	ok := billing.Budget{Scope: "key:k1", Period: billing.Day, LimitMicros: 1000, Hard: true}
	tests := []struct {
		name    string
		fail    error
		budgets []billing.Budget
		invalid bool
	}{
		{"store down", errors.New("connection refused"), []billing.Budget{ok}, false},
		{"store down on a soft budget", errors.New("timeout"), []billing.Budget{{Scope: "org:o", Period: billing.Month, LimitMicros: 1}}, false},
		{"unknown period", nil, []billing.Budget{{Scope: "key:k1", Period: "week", LimitMicros: 1, Hard: true}}, true},
		{"empty scope", nil, []billing.Budget{ok, {Period: billing.Day, LimitMicros: 1, Hard: true}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newMemSpend()
			s.fail = tt.fail
			v, err := billing.NewBudgets(s, billing.BudgetsConfig{}).Check(context.Background(), tt.budgets, now)
			if !errors.Is(err, billing.ErrBudgetUnavailable) || errors.Is(err, billing.ErrBudgetExceeded) {
				t.Fatalf("Check = %v, want ErrBudgetUnavailable", err)
			}
			if errors.Is(err, billing.ErrInvalidBudget) != tt.invalid {
				t.Fatalf("ErrInvalidBudget = %v, want %v (%v)", !tt.invalid, tt.invalid, err)
			}
			if tt.fail != nil && !errors.Is(err, tt.fail) {
				t.Fatalf("store error not wrapped: %v", err)
			}
			if len(v.Checked) != 0 || len(v.SoftExceeded) != 0 {
				t.Fatalf("verdict on failure = %+v", v)
			}
		})
	}
}

// slowSpend blocks until its context ends.
type slowSpend struct{}

func (slowSpend) Spent(ctx context.Context, _ string, _ time.Time) (int64, error) {
	<-ctx.Done()
	return 0, ctx.Err()
}

func (slowSpend) Add(ctx context.Context, _ string, _ time.Time, _ int64) error {
	<-ctx.Done()
	return ctx.Err()
}

func TestCheckTimesOutClosed(t *testing.T) {
	b := billing.NewBudgets(slowSpend{}, billing.BudgetsConfig{Timeout: 20 * time.Millisecond})
	_, err := b.Check(context.Background(), billing.KeyBudgets("k", 1, 0, true), time.Now())
	if !errors.Is(err, billing.ErrBudgetUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Check on a hanging store = %v", err)
	}
}

func TestRecord(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC) // the 1st: day and month start together
	keyDay := billing.Budget{Scope: "key:k1", Period: billing.Day, LimitMicros: 100, Hard: true}
	keyMonth := billing.Budget{Scope: "key:k1", Period: billing.Month, LimitMicros: 1000, Hard: true}
	orgMonthSoft := billing.Budget{Scope: "org:o1", Period: billing.Month, LimitMicros: 10}
	orgMonthHard := billing.Budget{Scope: "org:o1", Period: billing.Month, LimitMicros: 50, Hard: true}
	s := newMemSpend()
	b := billing.NewBudgets(s, billing.BudgetsConfig{})
	all := []billing.Budget{keyDay, keyMonth, orgMonthSoft, orgMonthHard}
	if err := b.Record(ctx, all, 30, now); err != nil {
		t.Fatal(err)
	}
	if err := b.Record(ctx, all, 0, now); err != nil || s.adds != 3 {
		t.Fatalf("adds = %d (%v): want 3 (org month once, zero cost never)", s.adds, err)
	}
	if err := b.Record(ctx, all, -5, now); err != nil || s.adds != 3 {
		t.Fatalf("a negative cost was recorded: adds = %d", s.adds)
	}
	// The next day: the daily counter restarts, the monthly one keeps going.
	next := now.Add(24 * time.Hour)
	if err := b.Record(ctx, []billing.Budget{keyDay, keyMonth}, 80, next); err != nil {
		t.Fatal(err)
	}
	v, err := b.Check(ctx, all, next)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	want := []int64{80, 110, 30, 30}
	for i, st := range v.Checked {
		if st.SpentMicros != want[i] {
			t.Fatalf("budget %d (%s %s) spent %d, want %d", i, st.Budget.Scope, st.Budget.Period, st.SpentMicros, want[i])
		}
	}
	if len(v.SoftExceeded) != 1 || v.SoftExceeded[0].Budget != orgMonthSoft {
		t.Fatalf("soft exceeded = %+v", v.SoftExceeded)
	}

	s.fail = errors.New("disk full")
	err = b.Record(ctx, all, 1, now)
	if !errors.Is(err, billing.ErrBudgetUnavailable) || !errors.Is(err, s.fail) {
		t.Fatalf("Record on a failing store = %v", err)
	}
	s.fail = nil
	err = b.Record(ctx, []billing.Budget{{Scope: "key:k1", Period: "year"}, keyDay}, 1, now)
	if !errors.Is(err, billing.ErrInvalidBudget) || s.m["key:k1/day@"+fmt.Sprint(now.Truncate(24*time.Hour).UnixMilli())] != 31 {
		t.Fatalf("an invalid budget must not stop the valid ones: %v, %v", err, s.m)
	}
}
