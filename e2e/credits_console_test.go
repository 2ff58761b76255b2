package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
)

// consoleLogin logs the browser in as email.
func consoleLogin(b *browser, base, email string) {
	b.do("log in as "+email,
		chromedp.Navigate(base+"/login"),
		chromedp.WaitVisible(tid("login-form")),
		chromedp.SendKeys(tid("login-email"), email),
		chromedp.SendKeys(tid("login-password"), "correct horse battery staple"),
		chromedp.Click(tid("login-submit")),
		chromedp.WaitVisible(tid("summary")),
	)
}

// TestConsoleBillingJourney walks hosted billing in headless Chromium: an
// operator creates a plan (with default limits), adds a platform credential pointing at the fake
// upstream, puts an organisation on the plan and records a top-up on the
// Operator page; the organisation's request runs on the platform
// credential; its Billing page shows the balance, the plan, the usage by
// model and key, and the debit in the ledger (screenshot kept).
func TestConsoleBillingJourney(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	in := startHeddle(t, nil)
	signUp(t, in.URL, "opb@example.com", "", "", "")
	tn := signUp(t, in.URL, "payer@example.com", "", "", "")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if out, err := runCLI(ctx, t, map[string]string{"HEDDLE_DATA_DIR": in.DataDir}, "operator", "add", "opb@example.com"); err != nil {
		t.Fatalf("operator add: %v %s", err, out)
	}

	b := newBrowser(t, in.URL)
	consoleLogin(b, in.URL, "opb@example.com")
	b.do("operator page", chromedp.Click(tid("nav-operator")), chromedp.WaitVisible(tid("operator-plan-form")), htmxSettled())
	b.do("create a plan",
		chromedp.SendKeys(tid("plan-name"), "browser plan"),
		chromedp.SendKeys(tid("plan-providers"), "openai"),
		chromedp.SetValue(tid("plan-multiplier"), "2"),
		chromedp.SendKeys(tid("plan-default-rpm"), "30"),
		chromedp.SendKeys(tid("plan-default-concurrency"), "4"),
		chromedp.Click(tid("plan-submit")),
		chromedp.WaitVisible(tid("operator-notice")),
		htmxSettled(),
	)
	b.do("add a platform credential",
		chromedp.SendKeys(tid("pc-provider"), "openai"),
		chromedp.SendKeys(tid("pc-label"), "platform"),
		chromedp.SendKeys(tid("pc-secret"), platformSecret),
		chromedp.SendKeys(tid("pc-base"), up.URL+"/v1"),
		chromedp.Click(tid("pc-submit")),
		chromedp.WaitVisible(`[data-testid^="operator-credential-"] code`),
		htmxSettled(),
	)
	if strings.Contains(b.html(), platformSecret) {
		t.Fatal("the operator page shows the platform secret")
	}
	planID, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector(`+
		jsString(`select[data-testid="operator-plan-select-`+tn.OrgID+`"] option:last-child`)+`).value`))
	if err != nil || !strings.HasPrefix(planID, "plan_") {
		t.Fatalf("plan option: %q %v", planID, err)
	}
	if got := b.text("operator-plan-defaults-" + planID); got != "30 rpm, 4 in flight" {
		t.Errorf("the plan's default limits shown as %q, want 30 rpm, 4 in flight", got)
	}
	b.do("set the plan",
		chromedp.SetValue(tid("operator-plan-select-"+tn.OrgID), planID),
		chromedp.Click(tid("operator-plan-set-"+tn.OrgID)),
		chromedp.WaitVisible(tid("operator-notice")),
		htmxSettled(),
	)
	b.do("record a top-up",
		chromedp.SetValue(tid("operator-credit-kind-"+tn.OrgID), "topup"),
		chromedp.SendKeys(tid("operator-credit-amount-"+tn.OrgID), "1"),
		chromedp.SendKeys(tid("operator-credit-reference-"+tn.OrgID), "inv-b1"),
		chromedp.Click(tid("operator-credit-submit-"+tn.OrgID)),
		chromedp.WaitVisible(tid("operator-notice")),
		htmxSettled(),
	)
	if got := b.textIn(`[data-testid="operator-org-` + tn.OrgID + `"] [data-testid="operator-org-balance"]`); got != "$1.00" {
		t.Errorf("the operator sees a balance of %q, want $1.00", got)
	}

	if resp, body := chat(t, in.URL, tn.Key, chatBody(7)); resp.StatusCode != 200 {
		t.Fatalf("request on the platform credential: %d %s", resp.StatusCode, body)
	}
	b.do("log out", chromedp.Click(tid("logout")), chromedp.WaitVisible(tid("login-form")))
	consoleLogin(b, in.URL, "payer@example.com")
	if b.count(`[data-testid="nav-operator"]`) != 0 {
		t.Error("a tenant's navigation shows the operator page")
	}
	b.do("billing page", chromedp.Click(tid("nav-billing")), chromedp.WaitVisible(tid("billing-balance")))
	if got := b.text("billing-plan-name"); got != "browser plan" {
		t.Errorf("plan %q", got)
	}
	if got := b.text("billing-plan-multiplier"); got != "2×" {
		t.Errorf("multiplier %q", got)
	}
	if b.count(`[data-testid="billing-usage-gpt-5-mini"]`) != 1 || b.count(`[data-testid^="ledger-entry-"]`) != 2 {
		t.Errorf("usage rows %d, ledger rows %d; want one gpt-5-mini usage row and a top-up and a debit",
			b.count(`[data-testid="billing-usage-gpt-5-mini"]`), b.count(`[data-testid^="ledger-entry-"]`))
	}
	if got := b.textIn(`[data-testid^="ledger-entry-"] [data-testid="ledger-kind"]`); got != "debit" {
		t.Errorf("newest ledger entry %q, want the request's debit", got)
	}
	if got := b.textIn(`[data-testid^="ledger-entry-"] [data-testid="ledger-amount"]`); !strings.HasPrefix(got, "-$") {
		t.Errorf("debit amount %q, want negative", got)
	}
	shot, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil || !bytes.HasPrefix(shot, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("billing screenshot: %v", err)
	}
	path := filepath.Join(os.TempDir(), "heddle-e2e-billing.png")
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("billing screenshot: %s (%d bytes)", path, len(shot))
	if p := b.pageProblems(); len(p) != 0 {
		t.Errorf("browser problems: %v", p)
	}
}
