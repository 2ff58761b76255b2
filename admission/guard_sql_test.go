package admission_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/admission"
	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/billing/billingtest"
	billingsql "github.com/heddle-gw/heddle/billing/sqlstore"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/internal/testdb"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// TestGuardOrgBudgets runs the guard over the real budget tables: an
// organisation's spending is the sum of its keys'; a hard org budget refuses
// every key of that organisation and no other's; a soft one logs an alert
// (no key) and admits; a settings read error refuses.
func TestGuardOrgBudgets(t *testing.T) {
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
		logs := &lockedBuffer{}
		store := billingsql.New(d.DB)
		orgs := billing.NewOrgBudgets(store, billing.OrgBudgetsConfig{Now: func() time.Time { return now }})
		g, err := admission.New(admission.Deps{Limiter: admission.NewRateCounters(billingtest.NewMemory(nil), 0, nil), Budgets: billing.NewBudgets(store, billing.BudgetsConfig{}),
			OrgBudgets: orgs, Logger: slog.New(slog.NewJSONHandler(logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		k1 := gateway.Caller{OrgID: "o1", KeyID: "k1", KeyPrefix: "rk_AAAAaaaa"}
		k2 := gateway.Caller{OrgID: "o1", KeyID: "k2", KeyPrefix: "rk_BBBBbbbb"}
		other := gateway.Caller{OrgID: "o2", KeyID: "k3", KeyPrefix: "rk_CCCCcccc"}

		// Spending recorded by Settle before any budget exists still counts.
		g.Settle(context.Background(), k1, 60, 10, now)
		g.Settle(context.Background(), k2, 50, 10, now)
		g.Settle(context.Background(), other, 500, 10, now)
		waitSpent(t, store, "org:o1/day", now, 110)
		waitSpent(t, store, "org:o2/day", now, 500)
		if got, _ := store.Spent(ctx, "key:k2/month", billing.Month.Start(now)); got != 50 {
			t.Fatalf("k2's month counter = %d, want 50", got)
		}

		if _, err := orgs.Set(ctx, "o1", billing.OrgBudgetSettings{
			Daily: billing.OrgLimit{LimitMicros: 100, Mode: billing.Hard}, Monthly: billing.OrgLimit{LimitMicros: 10_000, Mode: billing.Hard}}); err != nil {
			t.Fatal(err)
		}
		for _, c := range []gateway.Caller{k1, k2} {
			err := g.Admit(ctx, c, now)
			var be *billing.BudgetError
			if !errors.As(err, &be) || be.Scope != "org:o1" || be.Period != billing.Day || be.SpentMicros != 110 {
				t.Fatalf("%s under a spent hard org budget: %v", c.KeyID, err)
			}
		}
		if err := g.Admit(ctx, other, now); err != nil {
			t.Fatalf("another organisation: %v", err)
		}
		if err := g.Admit(ctx, k1, now.Add(12*time.Hour)); err != nil {
			t.Fatalf("the next day: %v", err)
		}

		// A key's own hard budget still applies beside a soft org budget.
		if _, err := orgs.Set(ctx, "o1", billing.OrgBudgetSettings{
			Daily: billing.OrgLimit{LimitMicros: 100, Mode: billing.Soft}, Monthly: billing.OrgLimit{Mode: billing.Hard}}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			if err := g.Admit(ctx, k1, now); err != nil {
				t.Fatalf("soft org budget, try %d: %v", i, err)
			}
		}
		line := logs.String()
		if n := strings.Count(line, "soft budget exceeded"); n != 1 {
			t.Fatalf("%d soft alerts for 3 requests within a minute, want 1: %s", n, line)
		}
		if !strings.Contains(line, `"scope":"org:o1"`) || !strings.Contains(line, `"period":"day"`) || !strings.Contains(line, `"spent_micros":110`) {
			t.Fatalf("alert lacks scope, period or spending: %s", line)
		}
		if strings.Contains(line, "rk_") || strings.Contains(line, "k1") {
			t.Fatalf("alert names the key: %s", line)
		}
		if err := g.Admit(ctx, k1, now.Add(2*time.Minute)); err != nil || strings.Count(logs.String(), "soft budget exceeded") != 2 {
			t.Fatalf("a minute later the alert repeats: %v %s", err, logs.String())
		}
		keyCapped := k1
		keyCapped.Limits.DailyBudgetMicros = 60
		if err := g.Admit(ctx, keyCapped, now); !errors.Is(err, billing.ErrBudgetExceeded) {
			t.Fatalf("key's own budget under a soft org budget: %v", err)
		}
		// The same key budget made soft admits and alerts (naming the key's
		// id, never its secret).
		keySoft := keyCapped
		keySoft.Limits.SoftBudgets = true
		if err := g.Admit(ctx, keySoft, now); err != nil {
			t.Fatalf("a spent soft key budget refused: %v", err)
		}
		if !strings.Contains(logs.String(), `"scope":"key:k1"`) {
			t.Fatalf("no alert for the spent soft key budget: %s", logs.String())
		}

		// Settings that cannot be read fail closed.
		sqlDB, _ := d.DB.DB()
		sqlDB.Close()
		orgs.Invalidate("o2")
		if err := g.Admit(ctx, other, now); !errors.Is(err, billing.ErrBudgetUnavailable) {
			t.Fatalf("settings store down: %v", err)
		}
	})
}

// waitSpent waits for Settle's background write.
func waitSpent(t *testing.T, s *billingsql.Store, scope string, now time.Time, want int64) {
	t.Helper()
	start := billing.Day.Start(now)
	if strings.HasSuffix(scope, "/month") {
		start = billing.Month.Start(now)
	}
	var got int64
	testwait.Until(t, 5*time.Second, fmt.Sprintf("%s spent %d", scope, want), func() bool {
		got, _ = s.Spent(context.Background(), scope, start)
		return got == want
	})
}
