package web_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/heddle-gw/heddle/credits"
)

func allProviders(string) bool { return true }

// TestConsoleBillingPage: the balance, the plan and its prices, a ledger
// paged by htmx, statement links; another organisation sees none of it.
func TestConsoleBillingPage(t *testing.T) {
	f := newConsoleFixture(t)
	ctx := context.Background()
	v := f.visitor()
	org := v.signup("payer@example.com")

	fresh := v.get("/billing", nil)
	if fresh.status != 200 || !fresh.isFullPage() || fresh.tid("nav-billing").AttrOr("class", "") != "active" ||
		fresh.tid("billing-no-plan").Length() != 1 || fresh.tid("ledger-empty").Length() != 1 || fresh.text("billing-balance") != "$0.00" {
		t.Fatalf("fresh billing page: %d %s", fresh.status, fresh.body)
	}
	for i := range 30 {
		if _, _, err := f.credits.Credit(ctx, credits.CreditInput{OrgID: org, Kind: credits.KindGrant, AmountMicros: 100_000, Actor: "op", Reason: "grant " + strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	plan, err := f.credits.SavePlan(ctx, credits.PlanInput{Name: "pro", Providers: []string{"openai", "anthropic", "google"}, MultiplierBP: 15000}, allProviders)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.credits.AssignPlan(ctx, org, plan.ID); err != nil {
		t.Fatal(err)
	}
	p := v.get("/billing", nil)
	if p.text("billing-balance") != "$3.00" || p.text("billing-plan-name") != "pro" || p.text("billing-plan-multiplier") != "1.5×" ||
		p.tid("billing-prices").Find("tbody tr").Length() == 0 || p.tid("billing-reservations-empty").Length() != 1 {
		t.Fatalf("billing page with credit and a plan: %s", p.body)
	}
	if n := p.doc.Find(`[data-testid^="ledger-entry-"]`).Length(); n != 25 {
		t.Errorf("first ledger page: %d rows, want 25", n)
	}
	older, _ := p.tid("ledger-older").Attr("hx-get")
	if older == "" || p.doc.Find(`[data-testid^="statement-pdf-"]`).Length() != 12 {
		t.Fatalf("no older-entries link or statement links: %s", p.body)
	}
	next := v.get(older, htmx)
	if next.status != 200 || next.isFullPage() || strings.Count(next.body, `data-testid="ledger-entry-`) != 5 || strings.Contains(next.body, "ledger-older") {
		t.Errorf("second ledger page: %d %s", next.status, next.body)
	}
	p.doc.Find("#main input:not([type=hidden]), #main select, #main button, #main a").Each(func(_ int, s *goquery.Selection) {
		if _, ok := s.Attr("data-testid"); !ok {
			html, _ := goquery.OuterHtml(s)
			t.Errorf("no data-testid: %s", html)
		}
	})
	month := consoleNow.UTC().Format("2006-01")
	if st := v.get("/billing/statements/"+month+"?format=pdf", nil); st.status != 200 || !strings.HasPrefix(st.body, "%PDF-") {
		t.Errorf("PDF statement from the console: %d %.20q", st.status, st.body)
	}

	// Another organisation: no plan, no balance, no entries, its own statement.
	w := f.visitor()
	other := w.signup("stranger@example.com")
	q := w.get("/billing", nil)
	if q.tid("billing-no-plan").Length() != 1 || q.text("billing-balance") != "$0.00" || q.tid("ledger-empty").Length() != 1 {
		t.Errorf("another organisation's billing page: %s", q.body)
	}
	if rows := w.get(older, htmx); strings.Contains(rows.body, "ledger-entry-") {
		t.Errorf("another organisation paged into the first one's ledger: %s", rows.body)
	}
	st := w.get("/billing/statements/"+month+"?format=json", nil)
	var body struct {
		OrgID string `json:"org_id"`
		Lines []any  `json:"lines"`
	}
	if err := json.Unmarshal([]byte(st.body), &body); err != nil || body.OrgID != other || len(body.Lines) != 0 {
		t.Errorf("another organisation's statement: %s", st.body)
	}
}

// TestConsoleOperatorPage: the operator page refuses non-operators; an
// operator creates a plan, sets it on an
// organisation, records an idempotent top-up and adds a platform
// credential that is never echoed.
func TestConsoleOperatorPage(t *testing.T) {
	f := newConsoleFixture(t)
	ctx := context.Background()
	tenantV := f.visitor()
	org := tenantV.signup("tenant@example.com")
	if p := tenantV.get("/operator", nil); p.status != 403 {
		t.Fatalf("a non-operator got /operator: %d", p.status)
	}
	if p := tenantV.post("/operator/plans", url.Values{"name": {"x"}, "multiplier": {"1"}}, htmx); p.status != 403 {
		t.Fatalf("a non-operator posted a plan: %d", p.status)
	}
	if tenantV.get("/dashboard", nil).tid("nav-operator").Length() != 0 {
		t.Error("a non-operator's navigation shows the operator page")
	}

	op := f.visitor()
	op.signup("root@example.com")
	root, err := f.accounts.UserByEmail(ctx, "root@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.credits.AddOperator(ctx, root.ID, "test"); err != nil {
		t.Fatal(err)
	}
	page := op.get("/operator", nil)
	if page.status != 200 || page.tid("nav-operator").AttrOr("class", "") != "active" || page.tid("operator-plan-form").Length() != 1 {
		t.Fatalf("operator page: %d %s", page.status, page.body)
	}
	made := op.post("/operator/plans", url.Values{"name": {"starter"}, "providers": {"openai"}, "multiplier": {"1.25"}, "included": {"2"},
		"default_rpm": {"60"}, "default_tpm": {""}, "default_max_concurrency": {"4"}}, htmx)
	if made.status != 200 || made.text("operator-notice") == "" || made.isFullPage() {
		t.Fatalf("create plan: %d %s", made.status, made.body)
	}
	plans, _ := f.credits.Plans(ctx)
	if len(plans) != 1 || plans[0].MultiplierBP != 12500 || plans[0].IncludedMonthlyMicros != 2_000_000 ||
		plans[0].Defaults != (credits.Limits{RPM: 60, MaxConcurrency: 4}) {
		t.Fatalf("plans %+v", plans)
	}
	if got := made.text("operator-plan-defaults-" + plans[0].ID); got != "60 rpm, 4 in flight" {
		t.Errorf("plan defaults shown as %q", got)
	}
	for _, bad := range []url.Values{{"default_rpm": {"many"}}, {"default_max_concurrency": {"-1"}}} {
		bad.Set("name", "bad-defaults")
		bad.Set("multiplier", "1")
		if p := op.post("/operator/plans", bad, htmx); p.status != 422 || p.text("operator-error") == "" {
			t.Errorf("plan defaults %v: %d %s", bad, p.status, p.body)
		}
	}
	if p := op.post("/operator/plans", url.Values{"name": {"bad"}, "providers": {"openai"}, "multiplier": {"0"}}, htmx); p.status != 422 || p.text("operator-error") == "" {
		t.Errorf("invalid plan: %d %s", p.status, p.body)
	}
	if p := op.post("/operator/orgs/"+org+"/plan", url.Values{"plan_id": {plans[0].ID}}, htmx); p.status != 200 {
		t.Fatalf("set plan: %d %s", p.status, p.body)
	}
	if got, _ := f.credits.OrgPlan(ctx, org); got == nil || got.ID != plans[0].ID {
		t.Fatalf("org plan %+v", got)
	}
	topup := url.Values{"kind": {"topup"}, "amount": {"5"}, "reference": {"inv-7"}}
	if p := op.post("/operator/orgs/"+org+"/credits", topup, htmx); p.status != 200 || !strings.Contains(p.text("operator-notice"), "topup") {
		t.Fatalf("top-up: %d %s", p.status, p.body)
	}
	if p := op.post("/operator/orgs/"+org+"/credits", topup, htmx); p.status != 200 || !strings.Contains(p.text("operator-notice"), "already recorded") {
		t.Errorf("repeated top-up: %d %s", p.status, p.body)
	}
	if p := op.post("/operator/orgs/"+org+"/credits", url.Values{"kind": {"topup"}, "amount": {"5"}}, htmx); p.status != 422 {
		t.Errorf("top-up without a reference: %d %s", p.status, p.body)
	}
	// Balance: the top-up once, and the plan's $2 of included credit
	// (granted when the plan was first read, above).
	if a, _ := f.credits.Account(ctx, org); a.BalanceMicros != 7_000_000 {
		t.Errorf("balance %d", a.BalanceMicros)
	}
	const secret = "sk-ok-platform-secret-1234"
	added := op.post("/operator/credentials", url.Values{"provider": {"openai"}, "label": {"main"}, "secret": {secret}}, htmx)
	if added.status != 200 || added.doc.Find(`[data-testid^="operator-credential-"]`).Length() == 0 || strings.Contains(added.body, secret) ||
		!strings.Contains(added.body, "1234") {
		t.Fatalf("add platform credential: %d %s", added.status, added.body)
	}
	id := strings.TrimPrefix(added.doc.Find(`tr[data-testid^="operator-credential-"]`).AttrOr("data-testid", ""), "operator-credential-")
	tested := op.post("/operator/credentials/"+id+"/test", nil, htmx)
	if tested.text("operator-credential-test-result") != "ok" {
		t.Errorf("test platform credential: %s", tested.body)
	}
	// The tenant's own credentials list does not show the platform's.
	if p := tenantV.get("/credentials", nil); p.tid("credentials-empty").Length() != 1 {
		t.Errorf("the tenant sees a credential it did not add: %s", p.body)
	}
}

// TestOperatorCannotTargetPlatformOrgBySlug: the platform organisation is
// refused by its slug as by its id (no plan, no credit on it).
func TestOperatorCannotTargetPlatformOrgBySlug(t *testing.T) {
	f := newConsoleFixture(t)
	ctx := context.Background()
	op := f.visitor()
	op.signup("root@example.com")
	root, err := f.accounts.UserByEmail(ctx, "root@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.credits.AddOperator(ctx, root.ID, "test"); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{credits.PlatformOrgID, "heddle-platform", "HEDDLE-PLATFORM"} {
		if p := op.post("/operator/orgs/"+ref+"/credits", url.Values{"kind": {"grant"}, "amount": {"5"}, "reason": {"x"}}, htmx); p.status != 404 {
			t.Errorf("grant to the platform organisation as %q: %d %s", ref, p.status, p.body)
		}
	}
	if a, _ := f.credits.Account(ctx, credits.PlatformOrgID); a.BalanceMicros != 0 {
		t.Errorf("the platform organisation was credited: %d", a.BalanceMicros)
	}
}
