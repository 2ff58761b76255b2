package web_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/billing/billingtest"
	"github.com/heddle-gw/heddle/web"
)

// budgetsFixture is the budget services over one in-memory store.
type budgetsFixture struct {
	store    *billingtest.Memory
	settings *billing.OrgBudgets
	spend    *billing.Budgets
	// ceiling is the operator's concurrency limit for every organisation.
	ceiling int
}

func newBudgets() *budgetsFixture {
	m := billingtest.NewMemory(nil)
	return &budgetsFixture{store: m, settings: billing.NewOrgBudgets(m, billing.OrgBudgetsConfig{}), spend: billing.NewBudgets(m, billing.BudgetsConfig{}), ceiling: 1024}
}

// deps are the web's budget collaborators over b.
func (b *budgetsFixture) deps() web.BudgetDeps {
	return web.BudgetDeps{Settings: b.settings, Spend: b.spend,
		ConcurrencyCeiling: func(context.Context, string) (int, error) { return b.ceiling, nil }}
}

func withBudgets(b *budgetsFixture) fixtureOpt {
	return func(d *deps) { d.Budgets = b.deps() }
}

// spendAt records a served turn of key in org at now, as the guard does.
func (b *budgetsFixture) spendAt(t *testing.T, org, key string, micros int64, now time.Time) {
	t.Helper()
	if err := b.spend.Record(context.Background(), billing.TurnScopes(org, key), micros, now); err != nil {
		t.Fatal(err)
	}
}

// usage reads one budget object ("org", "daily") of a budgets body.
func usage(t *testing.T, m map[string]any, path ...string) (limit, spent float64, mode string) {
	t.Helper()
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			t.Fatalf("no %v in %v", path, m)
		}
		cur = mm[p]
	}
	u, ok := cur.(map[string]any)
	if !ok {
		t.Fatalf("no %v in %v", path, m)
	}
	limit, _ = u["limit_micros"].(float64)
	spent, _ = u["spent_micros"].(float64)
	mode, _ = u["mode"].(string)
	if _, ok := u["resets_at"].(string); !ok {
		t.Fatalf("%v has no resets_at: %v", path, u)
	}
	return limit, spent, mode
}

func TestBudgetsAPI(t *testing.T) {
	b := newBudgets()
	f := newFixture(t, withBudgets(b))
	a := f.browser()
	org := str(a.signup("owner@a.example", "Org A"), "org", "id")

	got := a.mustStatus(a.do("GET", "/api/v1/budgets", nil), 200).json(t)
	if l, s, m := usage(t, got, "org", "daily"); l != 0 || s != 0 || m != "hard" {
		t.Fatalf("fresh org daily = %v %v %q", l, s, m)
	}
	if ks, _ := got["keys"].([]any); ks == nil || len(ks) != 0 {
		t.Fatalf("fresh org keys = %v, want []", got["keys"])
	}
	if got["org"].(map[string]any)["updated_at"] != nil {
		t.Fatalf("fresh org updated_at = %v", got["org"])
	}

	var ids []string
	for _, body := range []map[string]any{
		{"name": "capped", "scopes": []string{"inference"}, "daily_budget_micros": 500, "monthly_budget_micros": 9000},
		{"name": "free", "scopes": []string{"inference"}},
	} {
		r := a.mustStatus(a.do("POST", "/api/v1/keys", body), 201).json(t)
		ids = append(ids, str(r, "key", "id"))
	}
	now := time.Now()
	b.spendAt(t, org, ids[0], 300, now)
	b.spendAt(t, org, ids[1], 200, now)
	b.spendAt(t, org, ids[1], 1000, billing.Month.Start(now).Add(-time.Hour)) // last month: not counted

	got = a.mustStatus(a.do("PUT", "/api/v1/budgets", map[string]any{
		"daily_limit_micros": 1000, "daily_mode": "soft", "monthly_limit_micros": 50_000, "max_concurrency": 600,
	}), 200).json(t)
	if n, _ := got["org"].(map[string]any)["max_concurrency"].(float64); n != 600 {
		t.Fatalf("org max_concurrency after PUT = %v", got["org"])
	}
	if l, s, m := usage(t, got, "org", "daily"); l != 1000 || s != 500 || m != "soft" {
		t.Fatalf("org daily after PUT = %v %v %q", l, s, m)
	}
	if l, s, m := usage(t, got, "org", "monthly"); l != 50_000 || s != 500 || m != "hard" {
		t.Fatalf("org monthly after PUT (mode defaults to hard) = %v %v %q", l, s, m)
	}
	if str(got, "org", "updated_at") == "" {
		t.Fatalf("no updated_at after PUT: %v", got["org"])
	}
	stored, err := b.settings.Load(context.Background(), org)
	if err != nil || stored.Daily != (billing.OrgLimit{LimitMicros: 1000, Mode: billing.Soft}) ||
		stored.Monthly != (billing.OrgLimit{LimitMicros: 50_000, Mode: billing.Hard}) || stored.MaxConcurrency != 600 {
		t.Fatalf("stored %+v, %v", stored, err)
	}

	ks := got["keys"].([]any)
	if len(ks) != 2 {
		t.Fatalf("keys = %v", ks)
	}
	byID := map[string]map[string]any{}
	for _, k := range ks {
		km := k.(map[string]any)
		byID[km["id"].(string)] = km
		if !strings.HasPrefix(km["prefix"].(string), "rk_") || km["status"] != "active" {
			t.Fatalf("key view %v", km)
		}
	}
	if l, s, m := usage(t, byID[ids[0]], "daily"); l != 500 || s != 300 || m != "hard" {
		t.Fatalf("capped key daily = %v %v %q", l, s, m)
	}
	if l, s, _ := usage(t, byID[ids[0]], "monthly"); l != 9000 || s != 300 {
		t.Fatalf("capped key monthly = %v %v", l, s)
	}
	if l, s, _ := usage(t, byID[ids[1]], "daily"); l != 0 || s != 200 {
		t.Fatalf("free key daily = %v %v", l, s)
	}
	if !strings.Contains(f.logs.String(), `"msg":"organisation budgets updated"`) || !strings.Contains(f.logs.String(), `"daily_mode":"soft"`) {
		t.Fatalf("no change log: %s", f.logs.String())
	}

	// Clearing: an empty object is no budget at all.
	got = a.mustStatus(a.do("PUT", "/api/v1/budgets", map[string]any{}), 200).json(t)
	if l, _, m := usage(t, got, "org", "daily"); l != 0 || m != "hard" {
		t.Fatalf("cleared daily = %v %q", l, m)
	}

	// Without the CSRF header a cookie session cannot change them.
	a.csrf = false
	a.do("PUT", "/api/v1/budgets", map[string]any{"daily_limit_micros": 1}).wantError(t, 403, "web.csrf_invalid", "")
}

func TestBudgetsValidation(t *testing.T) {
	b := newBudgets()
	f := newFixture(t, withBudgets(b))
	a := f.browser()
	org := str(a.signup("owner@a.example", "Org A"), "org", "id")
	a.mustStatus(a.do("PUT", "/api/v1/budgets", map[string]any{"daily_limit_micros": 77, "daily_mode": "soft"}), 200)
	for _, tc := range []struct {
		name        string
		body        any
		status      int
		code, field string
	}{
		{"negative daily", `{"daily_limit_micros": -1}`, 400, "billing.invalid_budget", "daily_limit_micros"},
		{"fractional monthly", `{"monthly_limit_micros": 1.5}`, 400, "billing.invalid_budget", "monthly_limit_micros"},
		{"exponent", `{"daily_limit_micros": 1e3}`, 400, "billing.invalid_budget", "daily_limit_micros"},
		{"string amount", `{"daily_limit_micros": "100"}`, 400, "billing.invalid_budget", "daily_limit_micros"},
		{"beyond int64", `{"monthly_limit_micros": 9223372036854775808}`, 400, "billing.invalid_budget", "monthly_limit_micros"},
		{"unknown mode", `{"daily_mode": "strict"}`, 400, "billing.invalid_budget", "daily_mode"},
		{"mode in capitals", `{"monthly_limit_micros": 5, "monthly_mode": "SOFT"}`, 400, "billing.invalid_budget", "monthly_mode"},
		{"empty mode", `{"monthly_mode": ""}`, 400, "billing.invalid_budget", "monthly_mode"},
		{"negative concurrency", `{"max_concurrency": -1}`, 400, "billing.invalid_budget", "max_concurrency"},
		{"fractional concurrency", `{"max_concurrency": 2.5}`, 400, "billing.invalid_budget", "max_concurrency"},
		{"concurrency too high", `{"max_concurrency": 100001}`, 400, "billing.invalid_budget", "max_concurrency"},
		{"concurrency above the operator's limit", `{"max_concurrency": 1025}`, 422, "billing.concurrency_above_limit", "max_concurrency"},
		{"mode not a string", `{"daily_mode": 1}`, 400, "web.bad_request", "daily_mode"},
		{"unknown field", `{"weekly_limit_micros": 5}`, 400, "web.bad_request", "weekly_limit_micros"},
		{"empty body", ``, 400, "web.bad_request", ""},
		{"not an object", `[1]`, 400, "web.bad_request", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := a.do("PUT", "/api/v1/budgets", tc.body)
			r.wantError(t, tc.status, tc.code, tc.field)
			if tc.field != "" && !strings.Contains(str(r.json(t), "error", "message"), tc.field) {
				t.Fatalf("message does not name %s: %s", tc.field, r.body)
			}
		})
	}
	s, err := b.settings.Load(context.Background(), org)
	if err != nil || s.Daily != (billing.OrgLimit{LimitMicros: 77, Mode: billing.Soft}) {
		t.Fatalf("invalid PUTs changed the settings: %+v, %v", s, err)
	}
}

func TestBudgetsRoles(t *testing.T) {
	b := newBudgets()
	f := newFixture(t, withBudgets(b))
	owner := f.browser()
	org := str(owner.signup("owner@a.example", "Org A"), "org", "id")
	roles := map[string]*client{"owner": owner}
	for _, role := range []string{"admin", "member", "viewer"} {
		roles[role] = f.invite(owner, org, role+"@a.example", role)
	}
	for i, tc := range []struct {
		role string
		put  bool
	}{{"owner", true}, {"admin", true}, {"member", false}, {"viewer", false}} {
		t.Run(tc.role, func(t *testing.T) {
			c := roles[tc.role]
			c.mustStatus(c.do("GET", "/api/v1/budgets", nil), 200)
			r := c.do("PUT", "/api/v1/budgets", map[string]any{"daily_limit_micros": 100 + i})
			if tc.put {
				c.mustStatus(r, 200)
			} else {
				r.wantError(t, 403, "tenancy.forbidden", "")
			}
		})
	}
	if s, _ := b.settings.Load(context.Background(), org); s.Daily.LimitMicros != 101 {
		t.Fatalf("daily limit %d, want the admin's 101", s.Daily.LimitMicros)
	}
}

// TestBudgetsIsolation: another organisation neither sees nor changes
// these budgets, their spending or their keys.
func TestBudgetsIsolation(t *testing.T) {
	b := newBudgets()
	f := newFixture(t, withBudgets(b))
	a, other := f.browser(), f.browser()
	orgA := str(a.signup("alice@a.example", "Org A"), "org", "id")
	orgB := str(other.signup("bob@b.example", "Org B"), "org", "id")
	key := str(a.mustStatus(a.do("POST", "/api/v1/keys", map[string]any{"name": "a-key", "scopes": []string{"inference"}}), 201).json(t), "key", "id")
	b.spendAt(t, orgA, key, 4242, time.Now())
	a.mustStatus(a.do("PUT", "/api/v1/budgets", map[string]any{"daily_limit_micros": 5000, "monthly_mode": "soft"}), 200)

	seen := other.mustStatus(other.do("GET", "/api/v1/budgets", nil), 200)
	if l, s, _ := usage(t, seen.json(t), "org", "daily"); l != 0 || s != 0 {
		t.Fatalf("org B sees daily %v spent %v", l, s)
	}
	if strings.Contains(string(seen.body), key) || strings.Contains(string(seen.body), "a-key") || strings.Contains(string(seen.body), "4242") {
		t.Fatalf("org B sees org A's key or spending: %s", seen.body)
	}
	other.mustStatus(other.do("PUT", "/api/v1/budgets", map[string]any{"daily_limit_micros": 1}), 200)
	if s, _ := b.settings.Load(context.Background(), orgA); s.Daily.LimitMicros != 5000 || s.Monthly.Mode != billing.Soft {
		t.Fatalf("org B's PUT changed org A: %+v", s)
	}
	if s, _ := b.settings.Load(context.Background(), orgB); s.Daily.LimitMicros != 1 {
		t.Fatalf("org B's own settings: %+v", s)
	}
	anon := f.browser()
	anon.do("GET", "/api/v1/budgets", nil).wantError(t, 401, "tenancy.unauthorized", "")
	anon.do("PUT", "/api/v1/budgets", map[string]any{"daily_limit_micros": 1}).wantError(t, 401, "tenancy.unauthorized", "")
}

func TestBudgetsUnavailable(t *testing.T) {
	b := newBudgets()
	f := newFixture(t, withBudgets(b))
	a := f.browser()
	a.signup("alice@a.example", "Org A")
	b.store.Fail(errors.New("connection refused to 10.0.0.7"))
	a.do("GET", "/api/v1/budgets", nil).wantError(t, 503, "billing.unavailable", "")
	r := a.do("PUT", "/api/v1/budgets", map[string]any{"daily_limit_micros": 5})
	r.wantError(t, 503, "billing.unavailable", "")
	if strings.Contains(string(r.body), "10.0.0.7") {
		t.Fatalf("the store error leaks: %s", r.body)
	}
	if !strings.Contains(f.logs.String(), "10.0.0.7") {
		t.Fatal("the store error is not logged")
	}
}
