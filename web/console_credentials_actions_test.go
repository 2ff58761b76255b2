package web_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

func withTester(ft *fakeTester) fixtureOpt { return func(d *deps) { d.Tester = ft } }

// addCredential adds a credential through the console and returns its id.
func (v *visitor) addCredential(provider, secret string) string {
	v.f.t.Helper()
	p := v.post("/credentials", url.Values{"provider": {provider}, "label": {provider + " main"}, "secret": {secret}}, htmx)
	if p.status != 201 {
		v.f.t.Fatalf("add %s credential: %d %s", provider, p.status, p.body)
	}
	full := v.get("/credentials", nil)
	var id string
	full.doc.Find(`[data-testid^="credential-row-"]`).Each(func(_ int, s *goquery.Selection) {
		if strings.TrimSpace(s.Find(`[data-testid="credential-provider"]`).Text()) == provider {
			id = strings.TrimPrefix(s.AttrOr("data-testid", ""), "credential-row-")
		}
	})
	if id == "" {
		v.f.t.Fatalf("no row for the %s credential", provider)
	}
	return id
}

func TestConsoleCredentialTest(t *testing.T) {
	ft := &fakeTester{}
	f := newConsoleFixture(t, withTester(ft))
	v := f.visitor()
	v.signup("tester@example.com")
	good := v.addCredential("openai", "sk-ok-good-credential-1234")
	const badSecret = "sk-bad-credential-SECRET-5678"
	bad := v.addCredential("anthropic", badSecret)

	list := v.get("/credentials", nil)
	btn := list.tid("credential-test-" + good)
	form := btn.Closest("form")
	if btn.Length() != 1 || form.AttrOr("hx-post", "") != "/credentials/"+good+"/test" || form.AttrOr("hx-target", "") != "#credential-test-"+good {
		t.Fatalf("test button: %s", list.body)
	}
	if list.doc.Find("#credential-test-"+good).Length() != 1 {
		t.Fatal("no test result slot")
	}

	p := v.post("/credentials/"+good+"/test", nil, htmx)
	if p.status != 200 || p.isFullPage() || p.text("credential-test-result") != "ok" || p.tid("credential-test-reason").Length() != 0 {
		t.Fatalf("good test: %d %s", p.status, p.body)
	}
	p = v.post("/credentials/"+bad+"/test", nil, htmx)
	if p.status != 422 || p.text("credential-test-result") != "failed" ||
		p.text("credential-test-reason") != "credential test failed: upstream said 401: invalid key [redacted]" {
		t.Fatalf("bad test: %d %s", p.status, p.body)
	}
	if strings.Contains(p.body, badSecret) {
		t.Error("the test result shows the secret")
	}
	if calls := strings.Join(ft.calls, " "); calls != "openai| anthropic|" {
		t.Errorf("tester calls %q", calls)
	}
	// Without htmx the page shows the result in the row.
	full := v.post("/credentials/"+good+"/test", nil, nil)
	if full.status != 200 || !full.isFullPage() ||
		strings.TrimSpace(full.tid("credential-row-"+good).Find(`[data-testid="credential-test-result"]`).Text()) != "ok" {
		t.Errorf("non-htmx test: %d %s", full.status, full.body)
	}

	// Another organisation cannot test it (nor learn it exists).
	other := f.visitor()
	other.signup("mallory@example.com")
	if p := other.post("/credentials/"+good+"/test", nil, htmx); p.status != 404 {
		t.Errorf("foreign test: %d", p.status)
	}
	// A viewer sees no test button and is refused.
	viewer := f.join(v, "viewer@example.com", "viewer")
	if vp := viewer.get("/credentials", nil); vp.doc.Find(`[data-testid^="credential-test-"], [data-testid^="credential-rotate-"], [data-testid^="credential-delete-"]`).Length() != 0 {
		t.Errorf("viewer's credential controls: %s", vp.body)
	}
	if p := viewer.post("/credentials/"+good+"/test", nil, htmx); p.status != 403 || p.text("credential-test-result") != "failed" {
		t.Errorf("viewer test: %d %s", p.status, p.body)
	}
}

func TestConsoleCredentialRotate(t *testing.T) {
	ft := &fakeTester{}
	f := newConsoleFixture(t, withTester(ft))
	v := f.visitor()
	v.signup("rotate@example.com")
	id := v.addCredential("openai", "sk-ok-first-secret-AAAA")

	list := v.get("/credentials", nil)
	rot := list.tid("credential-rotate-" + id)
	if rot.Length() != 1 || rot.Is("[open]") || rot.Find(`form[hx-post="/credentials/`+id+`/rotate"]`).Length() != 1 ||
		rot.Find(`input[name="secret"][type="password"]`).Length() != 1 {
		t.Fatalf("rotate control: %s", list.body)
	}

	// Too short: 422, the form stays open with the reason, nothing echoed.
	p := row(t, v.post("/credentials/"+id+"/rotate", url.Values{"secret": {"sk-1"}}, htmx))
	if p.status != 422 || !p.tid("credential-rotate-"+id).Is("[open]") || p.tid("credential-rotate-error").Length() != 1 ||
		p.text("credential-last-four") != "…AAAA" {
		t.Fatalf("short secret: %d %s", p.status, p.body)
	}
	// A new secret that fails its test is not stored.
	const failing = "sk-bad-rotated-secret-BBBB"
	p = row(t, v.post("/credentials/"+id+"/rotate", url.Values{"secret": {failing}, "test": {"1"}}, htmx))
	if p.status != 422 || p.text("credential-rotate-error") != "credential test failed: upstream said 401: invalid key [redacted]" ||
		strings.Contains(p.body, failing) {
		t.Fatalf("failing rotation: %d %s", p.status, p.body)
	}
	if got := v.get("/credentials", nil).text("credential-last-four"); got != "…AAAA" {
		t.Errorf("a refused rotation changed the credential: %q", got)
	}
	// A good one is: the row shows its new last four and the rotation time.
	const next = "sk-ok-rotated-secret-CCCC"
	p = row(t, v.post("/credentials/"+id+"/rotate", url.Values{"secret": {next}, "test": {"1"}}, htmx))
	if p.status != 200 || p.isFullPage() || p.text("credential-last-four") != "…CCCC" || p.text("credential-rotated") == "never" ||
		p.text("credential-rotated-note") != "Rotated; the new secret ends in …CCCC." || strings.Contains(p.body, next) {
		t.Fatalf("rotate: %d %s", p.status, p.body)
	}
	if len(ft.calls) != 2 {
		t.Errorf("tester called %d times, want 2 (the failing and the good secret)", len(ft.calls))
	}
	// The stored secret is the new one: its test passes through the vault.
	if r := v.post("/credentials/"+id+"/test", nil, htmx); r.text("credential-test-result") != "ok" {
		t.Errorf("test after rotation: %s", r.body)
	}
	// Without the test and without htmx: a redirect.
	if p := v.post("/credentials/"+id+"/rotate", url.Values{"secret": {"sk-plain-secret-DDDD"}}, nil); p.status != 303 || p.header.Get("Location") != "/credentials" {
		t.Errorf("non-htmx rotate: %d", p.status)
	}
	if got := v.get("/credentials", nil).text("credential-last-four"); got != "…DDDD" {
		t.Errorf("after non-htmx rotation: %q", got)
	}
	other := f.visitor()
	other.signup("eve2@example.com")
	if p := other.post("/credentials/"+id+"/rotate", url.Values{"secret": {"sk-evil-secret-EEEE"}}, htmx); p.status != 404 {
		t.Errorf("foreign rotation: %d", p.status)
	}
}
