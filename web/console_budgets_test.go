package web_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/web"
)

// budgetKeyID creates a key through the console's form and returns its id
// as the budgets page lists it.
func budgetKeyID(t *testing.T, v *visitor, name string) string {
	t.Helper()
	if p := v.post("/keys", url.Values{"name": {name}, "scopes": {"inference"}, "daily_budget": {"0.5"}}, htmx); p.status != 201 {
		t.Fatalf("create key: %d %s", p.status, p.body)
	}
	var id string
	v.get("/budgets", nil).doc.Find(`[data-testid^="budget-key-"]`).Each(func(_ int, s *goquery.Selection) {
		if strings.Contains(s.Text(), name) {
			id = strings.TrimPrefix(s.AttrOr("data-testid", ""), "budget-key-")
		}
	})
	if id == "" {
		t.Fatalf("key %s is not on the budgets page", name)
	}
	return id
}

func TestConsoleBudgetsPage(t *testing.T) {
	b := newBudgets()
	f := newConsoleFixture(t, withBudgets(b))
	v := f.visitor()
	org := v.signup("budget@example.com")

	full := v.get("/budgets", nil)
	if full.status != 200 || !full.isFullPage() || full.tid("nav-budgets").AttrOr("class", "") != "active" ||
		full.tid("budgets-form").Length() != 1 || full.tid("budgets-save").Length() != 1 {
		t.Fatalf("budgets page: %d %s", full.status, full.body)
	}
	if token, _ := full.tid("budgets-form").Find(`input[name="csrf_token"]`).Attr("value"); token == "" || token != v.cookies[web.CSRFCookie] {
		t.Errorf("form CSRF %q", token)
	}
	if full.text("org-limit-day") != "no budget" || full.text("org-spent-day") != "$0.00" || full.tid("org-bar-day").Length() != 0 ||
		full.tid("budgets-keys-empty").Length() != 1 {
		t.Errorf("fresh organisation: %s", full.body)
	}
	// Every interactive element carries a test id.
	full.doc.Find("#main input:not([type=hidden]), #main select, #main button, #main a").Each(func(_ int, s *goquery.Selection) {
		if _, ok := s.Attr("data-testid"); !ok {
			html, _ := goquery.OuterHtml(s)
			t.Errorf("no data-testid: %s", html)
		}
	})

	key := budgetKeyID(t, v, "ci-bot")
	b.spendAt(t, org, key, 300_000, consoleNow)
	p := v.get("/budgets", nil)
	row := p.tid("budget-key-" + key)
	if s := strings.TrimSpace(row.Find(`[data-testid="key-spent-day"]`).Text()); s != "$0.3000" {
		t.Errorf("key spent today %q", s)
	}
	if s := strings.Join(strings.Fields(row.Find(`[data-testid="key-limit-day"]`).Text()), " "); s != "$0.5000 (60.0%)" {
		t.Errorf("key daily budget %q", s)
	}
	if p.text("org-spent-month") != "$0.3000" {
		t.Errorf("org spent this month %q", p.text("org-spent-month"))
	}

	// Save through htmx: the content partial with the new budgets and bar.
	saved := v.post("/budgets", url.Values{"daily_budget": {"1"}, "daily_mode": {"hard"}, "monthly_budget": {""}, "monthly_mode": {"soft"},
		"max_concurrency": {"600"}}, htmx)
	if saved.status != 200 || saved.isFullPage() || saved.tid("budgets-saved").Length() != 1 {
		t.Fatalf("save: %d %s", saved.status, saved.body)
	}
	if saved.text("org-limit-day") != "$1.00" || saved.text("org-mode-day") != "hard" || saved.text("org-used-day") != "30.0% used" ||
		saved.tid("org-bar-day").AttrOr("value", "") != "0.3000" || saved.text("org-limit-month") != "no budget" {
		t.Errorf("saved content: %s", saved.body)
	}
	if saved.tid("budget-daily").AttrOr("value", "") != "1" || saved.tid("budget-monthly-mode").Find("option[selected]").AttrOr("value", "") != "soft" ||
		saved.tid("budgets-updated").Length() != 1 {
		t.Errorf("saved form does not show the settings: %s", saved.body)
	}
	s, err := b.settings.Load(context.Background(), org)
	if err != nil || s.Daily != (billing.OrgLimit{LimitMicros: 1_000_000, Mode: billing.Hard}) || s.Monthly != (billing.OrgLimit{Mode: billing.Soft}) ||
		s.MaxConcurrency != 600 {
		t.Fatalf("stored %+v, %v", s, err)
	}
	if got := saved.tid("budget-max-concurrency").AttrOr("value", ""); got != "600" {
		t.Errorf("saved form shows concurrency %q, want 600", got)
	}
	for _, bad := range []string{"many", "-2", "100001", "1025"} { // 1025: above the operator's limit
		p := v.post("/budgets", url.Values{"daily_mode": {"hard"}, "monthly_mode": {"hard"}, "max_concurrency": {bad}}, htmx)
		if p.status != 422 || p.tid("field-error-max_concurrency").Length() != 1 || p.tid("budget-max-concurrency").AttrOr("value", "") != bad {
			t.Fatalf("concurrency %q: %d %s", bad, p.status, p.body)
		}
	}

	// Invalid input re-renders with 422 and changes nothing.
	for _, tc := range []struct {
		name  string
		form  url.Values
		field string
	}{
		{"negative amount", url.Values{"daily_budget": {"-3"}, "daily_mode": {"hard"}, "monthly_mode": {"hard"}}, "daily_budget"},
		{"not an amount", url.Values{"monthly_budget": {"lots"}, "daily_mode": {"hard"}, "monthly_mode": {"hard"}}, "monthly_budget"},
		{"unknown mode", url.Values{"daily_budget": {"2"}, "daily_mode": {"loose"}, "monthly_mode": {"hard"}}, "daily_mode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := v.post("/budgets", tc.form, htmx)
			if p.status != 422 || p.tid("field-error-"+tc.field).Length() != 1 || p.tid("budgets-error").Length() != 1 {
				t.Fatalf("%d %s", p.status, p.body)
			}
			if got := p.tid("budget-"+strings.TrimSuffix(tc.field, "_budget")).AttrOr("value", "?"); tc.field != "daily_mode" && got != tc.form.Get(tc.field) {
				t.Errorf("form does not echo %q: %q", tc.form.Get(tc.field), got)
			}
		})
	}
	if s2, _ := b.settings.Load(context.Background(), org); s2.Daily != s.Daily || s2.Monthly != s.Monthly {
		t.Fatalf("invalid posts changed the settings: %+v", s2)
	}

	// Without htmx the post answers the whole page; without the CSRF token
	// it is refused.
	if p := v.post("/budgets", url.Values{"daily_budget": {"2.5"}, "daily_mode": {"soft"}, "monthly_mode": {"hard"}}, nil); p.status != 200 || !p.isFullPage() ||
		p.text("org-limit-day") != "$2.50" || p.text("org-mode-day") != "soft" {
		t.Errorf("plain post: %d %s", p.status, p.body)
	}
	if p := v.do("POST", "/budgets", url.Values{"csrf_token": {"forged"}, "daily_budget": {"9"}, "daily_mode": {"hard"}, "monthly_mode": {"hard"}}, htmx); p.status != 403 {
		t.Errorf("forged CSRF token: %d", p.status)
	}
	if s3, _ := b.settings.Load(context.Background(), org); s3.Daily.LimitMicros != 2_500_000 {
		t.Errorf("after the forged post: %+v", s3)
	}

	// Another organisation's console shows nothing of this one.
	w := f.visitor()
	w.signup("other@example.com")
	op := w.get("/budgets", nil)
	if op.status != 200 || op.text("org-limit-day") != "no budget" || op.text("org-spent-month") != "$0.00" || op.tid("budget-key-"+key).Length() != 0 {
		t.Errorf("other organisation's page: %s", op.body)
	}
}

// consoleInvite has owner invite email with role through the admin API
// and returns the invitee signed in.
func consoleInvite(t *testing.T, f *consoleFixture, owner *visitor, org, email, role string) *visitor {
	t.Helper()
	send := func(path, body string, auth bool) map[string]any {
		req := httptest.NewRequest("POST", path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if auth {
			for k, val := range owner.cookies {
				req.Header.Add("Cookie", k+"="+val)
			}
			req.Header.Set(web.CSRFHeader, owner.cookies[web.CSRFCookie])
		}
		resp, err := f.app.Test(req, -1)
		if err != nil || resp.StatusCode/100 != 2 {
			t.Fatalf("%s: %v %v", path, resp.StatusCode, err)
		}
		v := f.visitor()
		for _, c := range resp.Cookies() {
			v.cookies[c.Name] = c.Value
		}
		m := map[string]any{}
		_ = json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		m["_visitor"] = v
		return m
	}
	inv := send("/api/v1/orgs/"+org+"/members", `{"email":"`+email+`","role":"`+role+`"}`, true)
	path, _ := inv["accept_path"].(string)
	return send(path, `{"password":"correct horse battery staple"}`, false)["_visitor"].(*visitor)
}

func TestConsoleBudgetsReadOnly(t *testing.T) {
	b := newBudgets()
	f := newConsoleFixture(t, withBudgets(b))
	owner := f.visitor()
	org := owner.signup("owner@example.com")
	member := consoleInvite(t, f, owner, org, "dev@example.com", "member")
	p := member.get("/budgets", nil)
	if p.status != 200 || p.tid("budgets-readonly").Length() != 1 || p.tid("budgets-save").Length() != 0 ||
		p.tid("budget-daily").AttrOr("disabled", "x") == "x" {
		t.Fatalf("member's page: %d %s", p.status, p.body)
	}
	if p := member.post("/budgets", url.Values{"daily_budget": {"1"}, "daily_mode": {"hard"}, "monthly_mode": {"hard"}}, htmx); p.status != 403 {
		t.Fatalf("member's post: %d %s", p.status, p.body)
	}
	if s, _ := b.settings.Load(context.Background(), org); s != billing.NoOrgBudgets {
		t.Fatalf("member changed the budgets: %+v", s)
	}
}

func TestConsoleBudgetsUnavailable(t *testing.T) {
	b := newBudgets()
	f := newConsoleFixture(t, withBudgets(b))
	v := f.visitor()
	v.signup("down@example.com")
	b.store.Fail(context.DeadlineExceeded)
	if p := v.get("/budgets", htmx); p.status != 503 || p.tid("error-panel").Length() != 1 || p.isFullPage() {
		t.Fatalf("store down: %d %s", p.status, p.body)
	}
}
