package admission_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heddle-gw/heddle/admission"
	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/billing/billingtest"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/internal/testwait"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/tenancy/ratelimitredis"
)

// now is 15 s into a minute window, on the 29th (day and month differ).
var now = time.Date(2026, 11, 29, 12, 0, 15, 0, time.UTC)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// env is one guard over in-memory stores.
type env struct {
	t       *testing.T
	store   *billingtest.Memory
	orgs    *billing.OrgBudgets
	limiter tenancy.KeyLimiter
	logs    *lockedBuffer
	guard   *admission.Guard
}

func newEnv(t *testing.T, limiter tenancy.KeyLimiter) *env {
	t.Helper()
	e := &env{t: t, store: billingtest.NewMemory(nil), limiter: limiter, logs: &lockedBuffer{}}
	e.orgs = billing.NewOrgBudgets(e.store, billing.OrgBudgetsConfig{Now: func() time.Time { return now }})
	g, err := admission.New(admission.Deps{Limiter: limiter, Budgets: billing.NewBudgets(e.store, billing.BudgetsConfig{}),
		OrgBudgets: e.orgs, Logger: slog.New(slog.NewJSONHandler(e.logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	e.guard = g
	return e
}

func (e *env) spend(scope string, p billing.Period, micros int64) {
	e.t.Helper()
	if err := e.store.Add(context.Background(), scope+"/"+string(p), p.Start(now), micros); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) orgBudgets(s billing.OrgBudgetSettings) {
	e.t.Helper()
	if _, err := e.orgs.Set(context.Background(), "o1", s); err != nil {
		e.t.Fatal(err)
	}
}

func caller(l gateway.Limits) gateway.Caller {
	return gateway.Caller{OrgID: "o1", KeyID: "k1", KeyPrefix: "rk_AAAAaaaa", Limits: l}
}

func unreachableLimiter(t *testing.T) tenancy.KeyLimiter {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialerRetries: 1, DialTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { rdb.Close() })
	return admission.NewRateCounters(ratelimitredis.New(rdb, "heddle-test:"), 0, nil)
}

// TestAdmit covers every rule of Admit: its last call's error is checked
// (the ones before it, when any, must admit).
func TestAdmit(t *testing.T) {
	hardDay := billing.OrgBudgetSettings{Daily: billing.OrgLimit{LimitMicros: 100, Mode: billing.Hard}, Monthly: billing.OrgLimit{Mode: billing.Hard}}
	tests := []struct {
		name    string
		limiter func(t *testing.T) tenancy.KeyLimiter // nil: in memory
		setup   func(e *env)
		caller  gateway.Caller
		calls   int // Admit calls; the last one's error is checked (0 means 1)
		wantIs  error
		budget  *billing.BudgetError // the *BudgetError wanted, when any
		retry   time.Duration        // the RateLimitError's delay, when wanted
		alert   string               // a substring of the one soft alert wanted
	}{
		{name: "no limits, unknown org: admitted", caller: caller(gateway.Limits{})},
		{name: "under RPM", caller: caller(gateway.Limits{RPM: 3}), calls: 3},
		{name: "RPM spent: 429 until the window ends", caller: caller(gateway.Limits{RPM: 2}), calls: 3,
			wantIs: tenancy.ErrRateLimited, retry: 45 * time.Second},
		{name: "TPM spent: 429", caller: caller(gateway.Limits{TPM: 100}),
			setup:  func(e *env) { e.limiter.AddTokens(context.Background(), "k1", 100, now) },
			wantIs: tenancy.ErrRateLimited, retry: 45 * time.Second},
		{name: "rate limit before budgets: a spent budget's key is still 429", caller: caller(gateway.Limits{RPM: 1, DailyBudgetMicros: 10}),
			setup: func(e *env) {
				e.limiter.Allow(context.Background(), "k1", 1, now)
				e.spend("key:k1", billing.Day, 10)
				e.store.Fail(errors.New("db down"))
			},
			wantIs: tenancy.ErrRateLimited, retry: 45 * time.Second},
		{name: "limiter unreachable fails closed", limiter: unreachableLimiter, caller: caller(gateway.Limits{RPM: 10}),
			wantIs: tenancy.ErrLimiterUnavailable},
		{name: "key daily hard budget spent: 402", caller: caller(gateway.Limits{DailyBudgetMicros: 100}),
			setup:  func(e *env) { e.spend("key:k1", billing.Day, 100) },
			wantIs: billing.ErrBudgetExceeded,
			budget: &billing.BudgetError{Scope: "key:k1", Period: billing.Day, LimitMicros: 100, SpentMicros: 100, ResetAt: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)}},
		{name: "key monthly hard budget spent: 402", caller: caller(gateway.Limits{DailyBudgetMicros: 1000, MonthlyBudgetMicros: 500}),
			setup:  func(e *env) { e.spend("key:k1", billing.Day, 20); e.spend("key:k1", billing.Month, 600) },
			wantIs: billing.ErrBudgetExceeded,
			budget: &billing.BudgetError{Scope: "key:k1", Period: billing.Month, LimitMicros: 500, SpentMicros: 600, ResetAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}},
		{name: "key budget under its limit", caller: caller(gateway.Limits{DailyBudgetMicros: 100}),
			setup: func(e *env) { e.spend("key:k1", billing.Day, 99) }},
		{name: "key soft budget spent: admitted with an alert", caller: caller(gateway.Limits{DailyBudgetMicros: 100, SoftBudgets: true}), calls: 3,
			setup: func(e *env) { e.spend("key:k1", billing.Day, 150) },
			alert: `"scope":"key:k1","period":"day","spent_micros":150,"limit_micros":100`},
		{name: "org daily hard budget spent: 402", caller: caller(gateway.Limits{}),
			setup:  func(e *env) { e.orgBudgets(hardDay); e.spend("org:o1", billing.Day, 120) },
			wantIs: billing.ErrBudgetExceeded,
			budget: &billing.BudgetError{Scope: "org:o1", Period: billing.Day, LimitMicros: 100, SpentMicros: 120, ResetAt: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)}},
		{name: "key budget refuses before the org's", caller: caller(gateway.Limits{DailyBudgetMicros: 50}),
			setup: func(e *env) {
				e.orgBudgets(hardDay)
				e.spend("org:o1", billing.Day, 120)
				e.spend("key:k1", billing.Day, 60)
			},
			wantIs: billing.ErrBudgetExceeded,
			budget: &billing.BudgetError{Scope: "key:k1", Period: billing.Day, LimitMicros: 50, SpentMicros: 60, ResetAt: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)}},
		{name: "org monthly hard budget spent: 402", caller: caller(gateway.Limits{}),
			setup: func(e *env) {
				e.orgBudgets(billing.OrgBudgetSettings{Daily: billing.OrgLimit{Mode: billing.Hard}, Monthly: billing.OrgLimit{LimitMicros: 1000, Mode: billing.Hard}})
				e.spend("org:o1", billing.Month, 1000)
			},
			wantIs: billing.ErrBudgetExceeded,
			budget: &billing.BudgetError{Scope: "org:o1", Period: billing.Month, LimitMicros: 1000, SpentMicros: 1000, ResetAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}},
		{name: "org soft budget spent: admitted with one alert a minute", caller: caller(gateway.Limits{}), calls: 3,
			setup: func(e *env) {
				e.orgBudgets(billing.OrgBudgetSettings{Daily: billing.OrgLimit{LimitMicros: 100, Mode: billing.Soft}, Monthly: billing.OrgLimit{Mode: billing.Hard}})
				e.spend("org:o1", billing.Day, 110)
			},
			alert: `"org_id":"o1","scope":"org:o1","period":"day","spent_micros":110,"limit_micros":100`},
		{name: "another org's spent hard budget does not apply", caller: caller(gateway.Limits{}),
			setup: func(e *env) {
				if _, err := e.orgs.Set(context.Background(), "o2", hardDay); err != nil {
					e.t.Fatal(err)
				}
				e.spend("org:o2", billing.Day, 500)
			}},
		{name: "org settings unreadable fails closed", caller: caller(gateway.Limits{}),
			setup:  func(e *env) { e.store.FailSettingsReads(errors.New("db down")) },
			wantIs: billing.ErrBudgetUnavailable},
		{name: "spend store unreadable fails closed", caller: caller(gateway.Limits{DailyBudgetMicros: 100}),
			setup:  func(e *env) { e.orgs.Get(context.Background(), "o1"); e.store.Fail(errors.New("db down")) },
			wantIs: billing.ErrBudgetUnavailable},
		{name: "caller without an organisation is refused", caller: gateway.Caller{KeyID: "k1"},
			wantIs: admission.ErrNoCaller},
		{name: "caller without a key is refused", caller: gateway.Caller{OrgID: "o1"},
			wantIs: billing.ErrBudgetUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l tenancy.KeyLimiter = admission.NewRateCounters(billingtest.NewMemory(nil), 0, nil)
			if tt.limiter != nil {
				l = tt.limiter(t)
			}
			e := newEnv(t, l)
			if tt.setup != nil {
				tt.setup(e)
			}
			var err error
			for i := 0; i < max(tt.calls, 1); i++ {
				if err != nil {
					t.Fatalf("call %d of %d refused: %v", i, tt.calls, err)
				}
				err = e.guard.Admit(context.Background(), tt.caller, now)
			}
			if tt.wantIs == nil && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Fatalf("err = %v, want %v", err, tt.wantIs)
			}
			var rl *tenancy.RateLimitError
			if got := errors.As(err, &rl); got != (tt.retry > 0) || (got && rl.RetryAfter != tt.retry) {
				t.Fatalf("rate limit error %v (%+v), want retry after %s", err, rl, tt.retry)
			}
			var be *billing.BudgetError
			if got := errors.As(err, &be); got != (tt.budget != nil) || (got && *be != *tt.budget) {
				t.Fatalf("budget error %+v, want %+v", be, tt.budget)
			}
			logs := e.logs.String()
			if n := strings.Count(logs, "soft budget exceeded"); n != map[bool]int{true: 1}[tt.alert != ""] {
				t.Fatalf("%d soft alerts, want %v: %s", n, tt.alert != "", logs)
			}
			if !strings.Contains(logs, tt.alert) || strings.Contains(logs, "rk_") {
				t.Fatalf("logs %s: want %s and no key", logs, tt.alert)
			}
		})
	}
}

// TestSettle: the cost goes to the key's and the organisation's day and
// month counters (zero cost adds nothing); the tokens go to the TPM window
// in the background; a failed record is logged with the key's display
// prefix only.
func TestSettle(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, admission.NewRateCounters(billingtest.NewMemory(nil), 0, nil))
	c := caller(gateway.Limits{TPM: 100})
	e.guard.Settle(context.Background(), c, 70, 60, now)
	e.guard.Settle(context.Background(), c, 0, 0, now)
	e.guard.Settle(context.Background(), c, 5, 50, now)
	for _, sc := range []struct {
		scope string
		p     billing.Period
	}{{"key:k1", billing.Day}, {"key:k1", billing.Month}, {"org:o1", billing.Day}, {"org:o1", billing.Month}} {
		if got, err := e.store.Spent(ctx, sc.scope+"/"+string(sc.p), sc.p.Start(now)); err != nil || got != 75 {
			t.Fatalf("%s/%s spent %d, %v; want 75", sc.scope, sc.p, got, err)
		}
	}
	// 110 tokens settled against a TPM of 100: the next turn this minute
	// waits for the window (the count is written in the background).
	var err error
	testwait.Until(t, 5*time.Second, "the background token count to refuse the next turn", func() bool {
		err = e.guard.Admit(ctx, c, now)
		return err != nil
	})
	if !errors.Is(err, tenancy.ErrRateLimited) {
		t.Fatalf("after 110 tokens of 100: %v", err)
	}
	if err := e.guard.Admit(ctx, c, now.Add(time.Minute)); err != nil {
		t.Fatalf("the next minute: %v", err)
	}

	e.store.Fail(errors.New("db down"))
	e.guard.Settle(context.Background(), c, 9, 0, now)
	logs := e.logs.String()
	if !strings.Contains(logs, "budget record failed") || !strings.Contains(logs, `"key_prefix":"rk_AAAAaaaa"`) {
		t.Fatalf("record failure not logged with the key prefix: %s", logs)
	}
}

func TestNewRequiresEveryDependency(t *testing.T) {
	_, err := admission.New(admission.Deps{Limiter: admission.NewRateCounters(billingtest.NewMemory(nil), 0, nil)})
	if !errors.Is(err, admission.ErrMissingDependency) {
		t.Fatalf("err = %v, want ErrMissingDependency", err)
	}
	for _, f := range []string{"Deps.Budgets", "Deps.OrgBudgets", "Deps.Logger"} {
		if !strings.Contains(err.Error(), f) {
			t.Fatalf("%v does not name %s", err, f)
		}
	}
	if strings.Contains(err.Error(), "Deps.Limiter") {
		t.Fatalf("%v names the Limiter that was given", err)
	}
}
