package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// TestConsoleJourney walks the console in headless Chromium: sign up, see
// yourself as the organisation's owner and invite a member (token shown),
// add a provider credential pointing at a fake upstream and test it, create
// a key (reading its secret from the page) and edit its RPM, send a request
// with it, find the request in the explorer (filtering through htmx by
// status, model and key), open its attempt timeline, check the dashboard
// and screenshot it and the organisation page, revoke the key, log out.
func TestConsoleJourney(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	up.Script("gpt-5-mini", dispatchtest.OK("Hello from the fake upstream"))
	in := startHeddle(t, nil)
	b := newBrowser(t, in.URL)

	// Sign up: the form posts and answers with the log-in form (a sign-up
	// starts no session: its answer must not tell whether the email was
	// registered); logging in sets the session cookies and the dashboard shows.
	b.do("sign up",
		chromedp.Navigate(in.URL+"/"),
		chromedp.WaitVisible(tid("login-form")),
		chromedp.Click(tid("goto-signup")),
		chromedp.WaitVisible(tid("signup-form")),
		chromedp.SendKeys(tid("signup-email"), "browser@example.com"),
		chromedp.SendKeys(tid("signup-password"), "correct horse battery staple"),
		chromedp.SendKeys(tid("signup-org"), "Browser Org"),
		chromedp.Click(tid("signup-submit")),
		chromedp.WaitVisible(tid("login-notice")),
		chromedp.SendKeys(tid("login-password"), "correct horse battery staple"),
		chromedp.Click(tid("login-submit")),
		chromedp.WaitVisible(tid("summary")),
	)
	if loc := b.location(); !strings.HasSuffix(loc, "/dashboard") {
		t.Errorf("after sign-up the browser is at %s, want /dashboard", loc)
	}
	if got := b.text("nav-user"); got != "browser@example.com" {
		t.Errorf("nav user = %q", got)
	}
	if got := b.text("stat-requests"); got != "0" {
		t.Errorf("a new organisation's dashboard shows %q requests, want 0", got)
	}

	// The organisation page lists the new user as its owner; an invitation
	// shows its token once (no email is sent).
	b.do("organisation page", chromedp.Click(tid("nav-org")), chromedp.WaitVisible(tid("members-table")), htmxSettled())
	if got := b.text("org-name"); got != "Browser Org" {
		t.Errorf("organisation name %q", got)
	}
	if got := b.textIn(`[data-testid^="member-row-"] [data-testid="member-email"]`); got != "browser@example.com" {
		t.Errorf("member listed: %q", got)
	}
	if got := b.text("member-role"); got != "owner" {
		t.Errorf("own role %q, want owner", got)
	}
	if b.count(`[data-testid="member-you"]`) != 1 {
		t.Error("the own row is not marked")
	}
	b.do("invite a member",
		chromedp.SendKeys(tid("invite-email"), "teammate@example.com"),
		chromedp.SetValue(tid("invite-role"), "member"),
		chromedp.Click(tid("invite-submit")),
		chromedp.WaitVisible(tid("invite-token")),
		chromedp.WaitVisible(tid("invitation-email")),
	)
	if tok := b.text("invite-token"); !strings.HasPrefix(tok, "inv_") || len(tok) < 30 {
		t.Errorf("invitation token on the page = %q", tok)
	}
	if got := b.text("invitation-email"); got != "teammate@example.com" {
		t.Errorf("pending invitation for %q", got)
	}
	orgShot, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil || !bytes.HasPrefix(orgShot, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("organisation screenshot: %v", err)
	}
	orgShotPath := filepath.Join(os.TempDir(), "heddle-e2e-org.png")
	if err := os.WriteFile(orgShotPath, orgShot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("organisation screenshot: %s (%d bytes)", orgShotPath, len(orgShot))

	// A BYOK credential through the htmx form; the list shows only the last four.
	b.do("add credential",
		chromedp.Click(tid("nav-credentials")),
		chromedp.WaitVisible(tid("credential-form")),
		chromedp.SendKeys(tid("credential-provider-input"), "openai"),
		chromedp.SendKeys(tid("credential-label-input"), "fake upstream"),
		chromedp.SendKeys(tid("credential-secret-input"), fakeSecret),
		chromedp.SendKeys(tid("credential-base-url-input"), up.URL+"/v1"),
		chromedp.Click(tid("credential-add")),
		chromedp.WaitVisible(tid("credential-added")),
		chromedp.WaitVisible(tid("credential-provider")),
	)
	if got, want := b.text("credential-last-four"), "…"+fakeSecret[len(fakeSecret)-4:]; got != want {
		t.Errorf("credential shows %q, want %q", got, want)
	}
	if got := b.text("credential-label"); got != "fake upstream" {
		t.Errorf("credential label %q", got)
	}
	if strings.Contains(b.html(), fakeSecret) {
		t.Error("the credentials page contains the secret")
	}
	// Test it: the fake upstream answers the probe.
	b.do("test credential",
		htmxSettled(),
		chromedp.Click(chromedp.CSS(`button[data-testid^="credential-test-"]`)),
		chromedp.WaitVisible(tid("credential-test-result")),
	)
	if got := b.text("credential-test-result"); got != "ok" {
		t.Errorf("credential test shows %q, want ok", got)
	}

	// A key: the secret is shown once in the htmx response; the list updates.
	b.do("create key",
		chromedp.Click(tid("nav-keys")),
		chromedp.WaitVisible(tid("key-form")),
		chromedp.SendKeys(tid("key-name-input"), "browser key"),
		chromedp.Click(tid("key-create")),
		chromedp.WaitVisible(tid("key-secret")),
		chromedp.WaitVisible(tid("key-name")),
	)
	secret := b.text("key-secret")
	if !strings.HasPrefix(secret, "rk_") || len(secret) < 35 {
		t.Fatalf("key secret on the page = %q", secret)
	}
	if got := b.text("key-name"); got != "browser key" {
		t.Errorf("key list shows %q", got)
	}
	if got := b.text("key-prefix"); !strings.HasPrefix(secret, got) {
		t.Errorf("key prefix %q is not the secret's prefix", got)
	}

	// Edit its RPM in place: the row becomes a form and comes back saved.
	b.do("edit key",
		htmxSettled(),
		chromedp.Click(chromedp.CSS(`a[data-testid^="key-edit-"]`)),
		chromedp.WaitVisible(tid("key-edit-form")),
		htmxSettled(),
		chromedp.SetValue(tid("key-edit-rpm"), "60"),
		chromedp.Click(tid("key-edit-save")),
		chromedp.WaitVisible(tid("key-saved")),
	)
	if got := b.text("key-limits"); got != "60 rpm" {
		t.Errorf("key limits after the edit = %q, want 60 rpm", got)
	}
	b.do("keys again", chromedp.Navigate(in.URL+"/keys"), chromedp.WaitVisible(tid("keys-table")))
	if got := b.text("key-limits"); got != "60 rpm" {
		t.Errorf("saved key limits = %q, want 60 rpm", got)
	}

	// The key works on the data plane.
	resp, body := chat(t, in.URL, secret, `{"model":"gpt-5-mini","messages":[{"role":"user","content":"Say hello"}]}`)
	if resp.StatusCode != 200 {
		t.Fatalf("chat with the console's key: %d %s", resp.StatusCode, body)
	}
	reqID := resp.Header.Get("x-heddle-request-id")
	if reqID == "" {
		t.Fatal("no x-heddle-request-id")
	}

	// The explorer lists it once the analytics writer has flushed.
	link := `[data-testid="request-link-` + reqID + `"]`
	testwait.Until(t, time.Minute, "request "+reqID+" in the explorer", func() bool {
		b.do("open requests", chromedp.Navigate(in.URL+"/requests"), chromedp.WaitVisible(tid("requests-table")))
		return b.count(link) == 1
	})
	if got := b.textIn(`[data-testid="request-row-` + reqID + `"] [data-testid="request-served"]`); got != "gpt-5-mini" {
		t.Errorf("served model in the explorer = %q", got)
	}

	// Filters swap the results through htmx (no page load: the marker survives).
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`window.heddleMarker = true`)); err != nil {
		t.Fatal(err)
	}
	b.do("filter errors only",
		chromedp.SetValue(tid("filter-status"), "error"),
		chromedp.Click(tid("filter-apply")),
		chromedp.WaitVisible(tid("requests-empty")),
	)
	b.do("filter by another model",
		chromedp.SetValue(tid("filter-status"), ""),
		chromedp.SendKeys(tid("filter-model"), "claude-opus-4-5"),
		chromedp.Click(tid("filter-apply")),
		chromedp.WaitVisible(tid("requests-empty")),
	)
	b.do("filter by model, status and key",
		chromedp.SetValue(tid("filter-model"), "gpt-5-mini"),
		chromedp.SetValue(tid("filter-status"), "ok"),
		chromedp.SetValue(tid("filter-key"), keyIDOf(t, b)),
		chromedp.Click(tid("filter-apply")),
		chromedp.WaitVisible(chromedp.CSS(link)),
	)
	if marker, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`window.heddleMarker === true`)); err != nil || !marker {
		t.Errorf("filtering reloaded the page instead of swapping the results (marker %v, err %v)", marker, err)
	}
	if loc := b.location(); !strings.Contains(loc, "model=gpt-5-mini") || !strings.Contains(loc, "status=ok") {
		t.Errorf("filter URL not pushed: %s", loc)
	}

	// The attempt timeline.
	b.do("open timeline", chromedp.Click(chromedp.CSS(link)), chromedp.WaitVisible(tid("timeline-request")))
	for id, want := range map[string]string{
		"timeline-request-id": reqID, "timeline-served": "gpt-5-mini openai", "timeline-requested": "gpt-5-mini",
		"timeline-route": "explicit", "timeline-status": "200", "timeline-error": "none",
	} {
		if got := b.text(id); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	if n := b.count(`[data-testid="timeline-attempts"] tbody tr[data-testid^="attempt-"]`); n != 1 {
		t.Errorf("timeline shows %d attempts, want 1", n)
	}
	if got := b.text("attempt-outcome"); got != "served" {
		t.Errorf("attempt outcome %q", got)
	}
	if got := b.text("attempt-provider"); !strings.HasPrefix(got, "openai / ") {
		t.Errorf("attempt provider %q", got)
	}
	if got := b.text("attempt-index"); got != "0" {
		t.Errorf("attempt index %q", got)
	}
	if tl, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100)); err == nil && bytes.HasPrefix(tl, []byte("\x89PNG")) {
		_ = os.WriteFile(filepath.Join(os.TempDir(), "heddle-e2e-timeline.png"), tl, 0o644)
	}

	// The dashboard counts it; screenshot it.
	b.do("dashboard", chromedp.Click(tid("nav-dashboard")), chromedp.WaitVisible(tid("chart-spend-savings")))
	if got := b.text("stat-requests"); got != "1" {
		t.Errorf("dashboard requests = %q, want 1", got)
	}
	if got := b.text("stat-error-rate"); got != "0.0%" {
		t.Errorf("dashboard error rate = %q", got)
	}
	if n := b.count(`[data-testid="breakdown-model-gpt-5-mini"]`); n != 1 {
		t.Errorf("model breakdown has %d gpt-5-mini rows, want 1", n)
	}
	shot, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if len(shot) < 1000 || !bytes.HasPrefix(shot, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("dashboard screenshot is not a PNG (%d bytes)", len(shot))
	}
	shotPath := filepath.Join(os.TempDir(), "heddle-e2e-dashboard.png")
	if err := os.WriteFile(shotPath, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("dashboard screenshot: %s (%d bytes)", shotPath, len(shot))

	// Reports: the CSV link downloads the period shown; Routing: save the
	// dial through htmx.
	b.do("reports", chromedp.Click(tid("nav-reports")), chromedp.WaitVisible(tid("report-table")))
	today := time.Now().UTC()
	wantCSV := "/reports/cost.csv?from=" + today.AddDate(0, 0, -29).Format(time.DateOnly) + "&group=day&to=" + today.Format(time.DateOnly)
	href, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="report-csv"]').getAttribute('href')`))
	if err != nil || href != wantCSV {
		t.Errorf("CSV link %q (%v), want %q", href, err, wantCSV)
	}
	b.do("routing",
		chromedp.Click(tid("nav-routing")),
		chromedp.WaitVisible(tid("routing-form")),
		chromedp.SendKeys(tid("routing-alpha"), "0.3"),
		chromedp.Click(tid("routing-save")),
		chromedp.WaitVisible(tid("routing-saved")),
	)
	if v, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="routing-alpha"]').value`)); err != nil || v != "0.3" {
		t.Errorf("saved dial %q (%v)", v, err)
	}

	// Revoke the key (hx-confirm accepted): the row turns revoked and the key
	// is refused.
	b.do("revoke key",
		chromedp.Click(tid("nav-keys")),
		chromedp.WaitVisible(tid("keys-table")),
		chromedp.Click(chromedp.CSS(`[data-testid^="key-revoke-"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`[data-testid^="key-revoke-"]`)),
	)
	if got := b.text("key-status"); got != "revoked" {
		t.Errorf("key status after revoke = %q", got)
	}
	if resp, body := chat(t, in.URL, secret, `{"model":"gpt-5-mini","messages":[{"role":"user","content":"again"}]}`); resp.StatusCode != 401 {
		t.Errorf("revoked key answered %d: %s", resp.StatusCode, body)
	}

	// Log out: back to the log-in form, and the console is closed again.
	b.do("log out", chromedp.Click(tid("logout")), chromedp.WaitVisible(tid("login-form")))
	b.do("after logout", chromedp.Navigate(in.URL+"/keys"), chromedp.WaitVisible(tid("login-form")))

	for _, p := range b.pageProblems() {
		t.Errorf("browser console: %s", p)
	}
}

// keyIDOf is the id of the only key the requests filter offers.
func keyIDOf(t *testing.T, b *browser) string {
	t.Helper()
	id, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="filter-key"] option:not([value=""])').value`))
	if err != nil || id == "" {
		t.Fatalf("no key in the requests filter: %v", err)
	}
	return id
}

// htmxSettled waits until the page has loaded and htmx has finished every
// request and swap. htmx wires the hx-* attributes of swapped-in content
// only once it settles (it removes htmx-added from the new elements just
// before); a click before that would follow the plain link or submit the
// plain form instead.
func htmxSettled() chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](`document.readyState === 'complete' && ` +
		`document.querySelector('.htmx-added, .htmx-settling, .htmx-swapping, .htmx-request') === null`)
}
