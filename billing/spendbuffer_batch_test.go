package billing_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/billing"
)

// batchSpend is a memSpend that also writes many counters in one call
// (billing.ManyAdder), applying at most limit of them (all when limit is
// negative) before it fails, and records each call's adds.
type batchSpend struct {
	*memSpend
	limit  int
	calls  [][]billing.SpendAdd
	single int // Add calls (not through AddMany)
}

func (s *batchSpend) Add(ctx context.Context, scope string, start time.Time, micros int64) error {
	s.single++
	return s.memSpend.Add(ctx, scope, start, micros)
}

func (s *batchSpend) AddMany(ctx context.Context, adds []billing.SpendAdd) (int, error) {
	s.calls = append(s.calls, slices.Clone(adds))
	for i, a := range adds {
		if s.limit >= 0 && i >= s.limit {
			return i, errors.New("store down part way")
		}
		if err := s.memSpend.Add(ctx, a.Scope, a.PeriodStart, a.Micros); err != nil {
			return i, err
		}
	}
	return len(adds), nil
}

// TestSpendBufferFlushBatches: a flush over a store that writes many
// counters at once makes one call for all of them, in period and scope
// order (so replicas lock rows in one order), and none per counter. When
// the store stops part way, the counters it wrote are not written again and
// the others are, at the next flush: every amount counts exactly once.
func TestSpendBufferFlushBatches(t *testing.T) {
	ctx := context.Background()
	day := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	store := &batchSpend{memSpend: newMemSpend(), limit: -1}
	buf := billing.NewSpendBuffer(store, billing.SpendBufferConfig{})
	for k := range 50 {
		_ = buf.Add(ctx, fmt.Sprintf("key:k%02d/day", k), day.Add(time.Duration(k%2)*24*time.Hour), int64(k+1))
	}
	if err := buf.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if store.single != 0 || len(store.calls) != 1 || len(store.calls[0]) != 50 {
		t.Fatalf("flush of 50 counters: %d Add calls and %d AddMany calls (first of %d); want 0 and 1 of 50",
			store.single, len(store.calls), len(slices.Concat(store.calls...)))
	}
	if !slices.IsSortedFunc(store.calls[0], func(a, b billing.SpendAdd) int {
		if c := a.PeriodStart.Compare(b.PeriodStart); c != 0 {
			return c
		}
		return strings.Compare(a.Scope, b.Scope)
	}) {
		t.Errorf("adds not in period and scope order: %v", store.calls[0])
	}

	store.calls, store.limit = nil, 20
	for k := range 50 {
		_ = buf.Add(ctx, fmt.Sprintf("key:k%02d/day", k), day, 1000)
	}
	if err := buf.Flush(ctx); !errors.Is(err, billing.ErrBudgetUnavailable) {
		t.Fatalf("flush with the store down part way: %v; want ErrBudgetUnavailable", err)
	}
	store.limit = -1
	if err := buf.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if len(store.calls) != 2 || len(store.calls[1]) != 30 {
		t.Fatalf("retry wrote %d calls (%v); want one of the 30 not written", len(store.calls), store.calls)
	}
	for k := range 50 {
		scope := fmt.Sprintf("key:k%02d/day", k)
		want := int64(1000)
		if k%2 == 0 {
			want += int64(k + 1)
		}
		if got, _ := store.Spent(ctx, scope, day); got != want {
			t.Errorf("%s = %d, want %d", scope, got, want)
		}
	}
}

// TestRecordOverABufferAllocatesLittle: recording a turn's cost in a
// SpendBuffer is in-memory work; it sets no deadline per budget (a context
// and a timer each, three allocations or more apiece).
func TestRecordOverABufferAllocatesLittle(t *testing.T) {
	ctx := context.Background()
	buf := billing.NewSpendBuffer(newMemSpend(), billing.SpendBufferConfig{})
	b := billing.NewBudgets(buf, billing.BudgetsConfig{})
	budgets := []billing.Budget{
		{Scope: "key:k1", Period: billing.Day, LimitMicros: 1000, Hard: true},
		{Scope: "org:o1", Period: billing.Month},
	}
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	if err := b.Record(ctx, budgets, 5, now); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(200, func() { _ = b.Record(ctx, budgets, 5, now) })
	if allocs > 4 {
		t.Errorf("Record of 2 budgets in a buffer: %.0f allocations; want at most 4", allocs)
	}
	if got, err := buf.Spent(ctx, "key:k1/day", now.Truncate(24*time.Hour)); err != nil || got != 5*202 {
		t.Fatalf("key:k1/day = %d, %v; want %d (one Record and AllocsPerRun's 201)", got, err, 5*202)
	}
}
