package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/web"
	"github.com/heddle-gw/heddle/web/static"
)

func TestConsoleAnonymous(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	for _, tc := range []struct {
		name, path string
		h          hdr
		status     int
		location   string
		hxRedirect string
	}{
		{"root goes to the dashboard", "/", nil, 303, "/dashboard", ""},
		{"pages go to log-in with next", "/requests?model=x", nil, 303, "/login?next=%2Frequests%3Fmodel%3Dx", ""},
		{"htmx gets HX-Redirect", "/requests", htmx, 401, "", "/login"},
		{"timeline", "/requests/req-1", nil, 303, "/login?next=%2Frequests%2Freq-1", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := v.get(tc.path, tc.h)
			if p.status != tc.status || p.header.Get("Location") != tc.location || p.header.Get("HX-Redirect") != tc.hxRedirect {
				t.Errorf("status %d location %q hx-redirect %q; want %d %q %q", p.status, p.header.Get("Location"),
					p.header.Get("HX-Redirect"), tc.status, tc.location, tc.hxRedirect)
			}
		})
	}
	p := v.get("/login", nil)
	if p.status != 200 || p.tid("login-form").Length() != 1 || p.tid("login-email").Length() != 1 {
		t.Fatalf("login page: %d %s", p.status, p.body)
	}
	token, _ := p.tid("login-form").Find(`input[name="form_token"]`).Attr("value")
	if token == "" || token != v.cookies[web.FormCookie] {
		t.Errorf("form token %q does not match the cookie %q", token, v.cookies[web.FormCookie])
	}
}

func TestConsoleSecurityHeadersAndAssets(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	p := v.get("/login", nil)
	csp := p.header.Get("Content-Security-Policy")
	nonce, _ := p.doc.Find("script").Attr("nonce")
	if nonce == "" || !strings.Contains(csp, "'nonce-"+nonce+"'") || !strings.Contains(csp, "frame-ancestors 'none'") ||
		strings.Contains(csp, "unsafe") {
		t.Errorf("CSP %q with script nonce %q", csp, nonce)
	}
	if again := v.get("/login", nil); strings.Contains(again.header.Get("Content-Security-Policy"), nonce) {
		t.Error("the CSP nonce repeats across responses")
	}
	if p.header.Get("X-Frame-Options") != "DENY" || p.header.Get("Cache-Control") != "no-store" {
		t.Errorf("headers %v", p.header)
	}
	src, _ := p.doc.Find("script").Attr("src")
	if src != static.URL("htmx.min.js") || src == "" {
		t.Fatalf("script src %q, want %q", src, static.URL("htmx.min.js"))
	}
	js := v.get(src, nil)
	if js.status != 200 || !strings.HasPrefix(js.header.Get("Content-Type"), "text/javascript") ||
		!strings.Contains(js.header.Get("Cache-Control"), "immutable") || !strings.Contains(js.body, "htmx") {
		t.Errorf("htmx asset: %d %v", js.status, js.header)
	}
	if stale := v.get("/static/000000000000/htmx.min.js", nil); stale.status != 404 {
		t.Errorf("stale asset hash answered %d", stale.status)
	}
	if css := v.get(static.URL("console.css"), nil); css.status != 200 || !strings.HasPrefix(css.header.Get("Content-Type"), "text/css") {
		t.Errorf("stylesheet: %d %v", css.status, css.header)
	}
}

func TestConsoleSignup(t *testing.T) {
	f := newConsoleFixture(t)
	taken := f.visitor()
	taken.signup("taken@example.com")
	for _, tc := range []struct {
		name       string
		noToken    bool
		email, pw  string
		org        string
		status     int
		fieldError string // data-testid of the expected field error
		formError  string
	}{
		{"no form token", true, "a@example.com", "correct horse battery staple", "A", 403, "", ""},
		{"bad email", false, "not-an-email", "correct horse battery staple", "A", 422, "field-error-email", "signup-error"},
		{"short password", false, "b@example.com", "short", "B", 422, "field-error-password", "signup-error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := f.visitor()
			v.get("/signup", nil)
			form := url.Values{"email": {tc.email}, "password": {tc.pw}, "org_name": {tc.org}}
			if !tc.noToken {
				form.Set("form_token", v.cookies[web.FormCookie])
			}
			p := v.do("POST", "/signup", form, nil)
			if p.status != tc.status {
				t.Fatalf("status %d, want %d: %s", p.status, tc.status, p.body)
			}
			if _, ok := v.cookies[web.SessionCookie]; ok {
				t.Error("a failed sign-up set a session cookie")
			}
			if tc.fieldError != "" && p.tid(tc.fieldError).Length() != 1 {
				t.Errorf("no %s in %s", tc.fieldError, p.body)
			}
			if tc.formError != "" {
				if p.tid(tc.formError).Length() != 1 {
					t.Errorf("no %s in %s", tc.formError, p.body)
				}
				if got, _ := p.tid("signup-email").Attr("value"); got != tc.email {
					t.Errorf("the form lost the email: %q", got)
				}
				if strings.Contains(p.body, tc.pw) {
					t.Error("the form echoed the password")
				}
			}
		})
	}
	// A registered email gets the page a new email gets (the log-in form
	// with the same notice, no session), and nothing changes.
	answers := map[string]string{}
	for _, email := range []string{"taken@example.com", "another@example.com"} {
		v := f.visitor()
		v.get("/signup", nil)
		p := v.do("POST", "/signup", url.Values{"form_token": {v.cookies[web.FormCookie]}, "email": {email},
			"password": {"someone else's password"}, "org_name": {"C"}}, nil)
		if p.status != 200 || p.tid("login-form").Length() != 1 || v.cookies[web.SessionCookie] != "" {
			t.Fatalf("sign-up of %s: %d cookies %v %s", email, p.status, v.cookies, p.body)
		}
		if got, _ := p.tid("login-email").Attr("value"); got != email {
			t.Errorf("the log-in form lost the email: %q", got)
		}
		answers[email] = p.text("login-notice")
	}
	if answers["taken@example.com"] == "" || answers["taken@example.com"] != answers["another@example.com"] {
		t.Fatalf("sign-up notices differ: %q", answers)
	}
	if _, err := f.accounts.Login(context.Background(), "taken@example.com", "someone else's password"); err == nil {
		t.Fatal("a sign-up with a registered email changed its password")
	}
	v := f.visitor()
	v.signup("new@example.com")
	if v.cookies[web.SessionCookie] == "" || v.cookies[web.CSRFCookie] == "" || v.cookies[web.RefreshCookie] == "" {
		t.Fatalf("cookies after sign-up: %v", v.cookies)
	}
	d := v.get("/dashboard", nil)
	if d.status != 200 || d.text("nav-user") != "new@example.com" || d.text("nav-org-name") != "new@example.com org" {
		t.Errorf("dashboard after sign-up: %d user %q org %q", d.status, d.text("nav-user"), d.text("nav-org-name"))
	}
}

func TestConsoleLoginLogout(t *testing.T) {
	f := newConsoleFixture(t)
	f.visitor().signup("alice@example.com")
	for _, tc := range []struct {
		name, pw, next string
		status         int
		location       string
	}{
		{"wrong password", "wrong password!", "", 401, ""},
		{"good", "correct horse battery staple", "/keys", 303, "/keys"},
		{"foreign next is ignored", "correct horse battery staple", "//evil.example/x", 303, "/dashboard"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := f.visitor()
			v.get("/login", nil)
			p := v.do("POST", "/login", url.Values{
				"form_token": {v.cookies[web.FormCookie]}, "email": {"alice@example.com"}, "password": {tc.pw}, "next": {tc.next},
			}, nil)
			if p.status != tc.status || p.header.Get("Location") != tc.location {
				t.Fatalf("status %d location %q, want %d %q", p.status, p.header.Get("Location"), tc.status, tc.location)
			}
			if tc.status != 303 {
				if p.text("login-error") != "invalid email or password" || v.cookies[web.SessionCookie] != "" {
					t.Errorf("failed login: error %q cookies %v", p.text("login-error"), v.cookies)
				}
				return
			}
			if v.cookies[web.SessionCookie] == "" {
				t.Fatal("no session cookie")
			}
			session := v.cookies[web.SessionCookie]
			if out := v.post("/logout", nil, nil); out.status != 303 || out.header.Get("Location") != "/login" {
				t.Fatalf("logout: %d %q", out.status, out.header.Get("Location"))
			}
			if v.cookies[web.SessionCookie] != "" {
				t.Error("logout left the session cookie")
			}
			// The old access token is revoked server-side, not just forgotten.
			v.cookies[web.SessionCookie] = session
			if p := v.get("/keys", nil); p.status != 303 {
				t.Errorf("revoked session still opens /keys: %d", p.status)
			}
		})
	}
}

func TestConsoleExpiredAccessTokenRefreshes(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	v.signup("refresh@example.com")
	v.cookies[web.SessionCookie] = "garbage.token.value"
	p := v.get("/keys", nil)
	if p.status != 200 || p.tid("keys-table").Length() != 1 {
		t.Fatalf("with a bad access token and a good refresh token /keys answered %d", p.status)
	}
	if v.cookies[web.SessionCookie] == "garbage.token.value" {
		t.Error("the access cookie was not renewed")
	}
}

func TestConsoleLeavesOtherPathsAlone(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	for _, path := range []string{"/v1/nope", "/healthz-not", "/static/x"} {
		p := v.get(path, nil)
		if p.status != 404 || p.header.Get("Location") != "" || p.header.Get("Content-Security-Policy") != "" {
			t.Errorf("%s: %d location %q csp %q: the console's middleware ran", path, p.status, p.header.Get("Location"),
				p.header.Get("Content-Security-Policy"))
		}
	}
}
