package web_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/web"
)

func TestSignupSetsSessionCookies(t *testing.T) {
	for _, secure := range []bool{false, true} {
		opts := []fixtureOpt{}
		if secure {
			opts = append(opts, withSecureCookies())
		}
		f := newFixture(t, opts...)
		c := f.browser()
		r := c.mustStatus(c.do("POST", "/api/v1/signup", map[string]string{"email": "Alice@Example.com", "password": "correct horse battery", "org_name": "Acme"}), 202)
		if len(r.header.Values("Set-Cookie")) != 0 || strings.Contains(string(r.body), "token") {
			t.Fatalf("signup started a session: %v %s", r.header.Values("Set-Cookie"), r.body)
		}
		r = c.mustStatus(c.do("POST", "/api/v1/login", map[string]string{"email": "alice@example.com", "password": "correct horse battery"}), 200)
		body := r.json(t)
		if str(body, "user", "email") != "alice@example.com" || str(body, "org", "name") != "Acme" || str(body, "org", "role") != "owner" ||
			str(body, "access_token") == "" || str(body, "refresh_token") == "" || str(body, "csrf_token") == "" {
			t.Fatalf("login body after signup %s", r.body)
		}
		if strings.Contains(string(r.body), "password") || strings.Contains(string(r.body), "argon2") {
			t.Fatalf("login body mentions the password: %s", r.body)
		}
		for _, c := range []struct {
			name     string
			httpOnly bool
		}{{web.SessionCookie, true}, {web.RefreshCookie, true}, {web.CSRFCookie, false}} {
			ck := r.cookie(c.name)
			if ck == nil {
				t.Fatalf("cookie %s not set", c.name)
			}
			if ck.HttpOnly != c.httpOnly || ck.Secure != secure || ck.Path != "/" || ck.SameSite != 2 /* Lax */ {
				t.Fatalf("cookie %s: httpOnly=%v secure=%v path=%q samesite=%v", c.name, ck.HttpOnly, ck.Secure, ck.Path, ck.SameSite)
			}
		}
		if r.cookie(web.SessionCookie).Value != str(body, "access_token") || r.cookie(web.CSRFCookie).Value != str(body, "csrf_token") {
			t.Fatal("cookies do not hold the returned tokens")
		}
		if r.header.Get("Cache-Control") != "no-store" {
			t.Fatalf("Cache-Control %q", r.header.Get("Cache-Control"))
		}
	}
}

func TestSignupAndLoginErrors(t *testing.T) {
	f := newFixture(t)
	c := f.browser()
	c.signup("alice@example.com", "Acme")
	for _, tc := range []struct {
		name   string
		path   string
		body   any
		ctype  string
		status int
		code   string
		field  string
	}{
		{"missing email", "/api/v1/signup", map[string]string{"password": "correct horse battery"}, "", 400, "tenancy.invalid_input", "email"},
		{"short password", "/api/v1/signup", map[string]string{"email": "b@example.com", "password": "x"}, "", 400, "tenancy.invalid_input", "password"},
		{"unknown field", "/api/v1/signup", map[string]any{"email": "b@example.com", "password": "correct horse battery", "admin": true}, "", 400, "web.bad_request", "admin"},
		{"wrong type", "/api/v1/signup", map[string]any{"email": 5, "password": "correct horse battery"}, "", 400, "web.bad_request", "email"},
		{"malformed", "/api/v1/signup", `{"email":`, "", 400, "web.bad_request", ""},
		{"trailing data", "/api/v1/signup", `{"email":"b@example.com"} {}`, "", 400, "web.bad_request", ""},
		{"not json", "/api/v1/signup", `email=b@example.com`, "application/x-www-form-urlencoded", 415, "web.unsupported_media_type", ""},
		{"too large", "/api/v1/signup", `{"email":"` + strings.Repeat("a", 70<<10) + `"}`, "", 413, "web.body_too_large", ""},
		{"wrong password", "/api/v1/login", map[string]string{"email": "alice@example.com", "password": "wrong horse battery"}, "", 401, "tenancy.invalid_login", ""},
		{"unknown user", "/api/v1/login", map[string]string{"email": "zed@example.com", "password": "correct horse battery"}, "", 401, "tenancy.invalid_login", ""},
		{"no route", "/api/v1/nope", nil, "", 401, "tenancy.unauthorized", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			anon := f.browser()
			var r *resp
			if tc.ctype != "" {
				req := httptest.NewRequest("POST", tc.path, strings.NewReader(tc.body.(string)))
				req.Header.Set("Content-Type", tc.ctype)
				r = f.send(req, anon)
			} else {
				r = anon.do("POST", tc.path, tc.body)
			}
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			code, field := r.errCode(t)
			if code != tc.code || field != tc.field {
				t.Fatalf("error %q field %q, want %q %q: %s", code, field, tc.code, tc.field, r.body)
			}
		})
	}
	r := c.mustStatus(c.do("POST", "/api/v1/login", map[string]string{"email": "alice@example.com", "password": "correct horse battery"}), 200)
	if str(r.json(t), "org", "name") != "Acme" {
		t.Fatalf("login body %s", r.body)
	}
}

// TestLoginRateLimited: once an account's failure budget is spent, the
// address that keeps failing on it is barred with a Retry-After, for a
// right password too (the bar is decided before any password check).
func TestLoginRateLimited(t *testing.T) {
	f := newFixture(t, withLimiter(tenancy.NewLoginLimiter(tenancy.LoginLimitConfig{
		PerIP: tenancy.Rate{PerMinute: 100, Burst: 100}, PerEmail: tenancy.Rate{PerMinute: 2, Burst: 2},
	})))
	c := f.browser()
	c.signup("a@example.com", "A")
	guesser := f.browser()
	for range 3 {
		guesser.mustStatus(guesser.do("POST", "/api/v1/login", map[string]string{"email": "a@example.com", "password": "nope nope nope"}), 401)
	}
	r := guesser.mustStatus(guesser.do("POST", "/api/v1/login", map[string]string{"email": "A@example.com", "password": "nope nope nope"}), 429)
	if code, _ := r.errCode(t); code != "tenancy.rate_limited" || r.header.Get("Retry-After") != "1" {
		t.Fatalf("rate limited: %s, Retry-After %q", r.body, r.header.Get("Retry-After"))
	}
	guesser.mustStatus(guesser.do("POST", "/api/v1/login", map[string]string{"email": "a@example.com", "password": "correct horse battery"}), 429)
}

func TestAuthModesAndCSRF(t *testing.T) {
	f := newFixture(t)
	alice := f.browser()
	body := alice.signup("alice@example.com", "Acme")
	mallory := f.browser()
	mallory.signup("mallory@example.com", "Evil")

	anon := f.browser()
	r := anon.mustStatus(anon.do("GET", "/api/v1/me", nil), 401)
	if code, _ := r.errCode(t); code != "tenancy.unauthorized" {
		t.Fatalf("anonymous /me: %s", r.body)
	}
	r = alice.mustStatus(alice.do("GET", "/api/v1/me", nil), 200)
	if str(r.json(t), "user", "email") != "alice@example.com" || str(r.json(t), "org", "role") != "owner" {
		t.Fatalf("/me %s", r.body)
	}
	curl := &client{f: f, bearer: str(body, "access_token")}
	curl.mustStatus(curl.do("GET", "/api/v1/me", nil), 200)
	for _, bad := range []string{"garbage", str(body, "access_token") + "x", str(body, "refresh_token")} {
		x := &client{f: f, bearer: bad}
		x.mustStatus(x.do("GET", "/api/v1/me", nil), 401)
	}
	req := httptest.NewRequest("GET", "/api/v1/me", nil)
	req.Header.Set("Authorization", "Basic YWxpY2U6cHc=")
	if r := f.send(req, nil); r.status != 401 {
		t.Fatalf("Basic auth: %d", r.status)
	}

	key := map[string]string{"name": "k"}
	// Cookie auth without the CSRF header: refused.
	noHeader := &client{f: f, cookies: alice.cookies}
	r = noHeader.mustStatus(noHeader.do("POST", "/api/v1/keys", key), 403)
	if code, _ := r.errCode(t); code != "web.csrf_invalid" {
		t.Fatalf("missing CSRF: %s", r.body)
	}
	// Header that does not match the cookie: refused.
	req = httptest.NewRequest("POST", "/api/v1/keys", strings.NewReader(`{"name":"k"}`))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range alice.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	req.Header.Set(web.CSRFHeader, "forged")
	if r := f.send(req, nil); r.status != 403 {
		t.Fatalf("mismatched CSRF header: %d", r.status)
	}
	// Mallory plants her own (valid, matching) CSRF cookie and header next to
	// Alice's session cookie: refused, the token is bound to the session.
	planted := map[string]string{web.SessionCookie: alice.cookies[web.SessionCookie], web.CSRFCookie: mallory.cookies[web.CSRFCookie]}
	pc := &client{f: f, cookies: planted, csrf: true}
	pc.mustStatus(pc.do("POST", "/api/v1/keys", key), 403)
	// GET needs no CSRF; a correct token passes; Bearer needs none.
	noHeader.mustStatus(noHeader.do("GET", "/api/v1/keys", nil), 200)
	alice.mustStatus(alice.do("POST", "/api/v1/keys", key), 201)
	curl.mustStatus(curl.do("POST", "/api/v1/keys", key), 201)
}

func TestLogoutAndRefresh(t *testing.T) {
	f := newFixture(t)
	alice := f.browser()
	body := alice.signup("alice@example.com", "Acme")
	access, refresh := str(body, "access_token"), str(body, "refresh_token")

	// Refresh with the token in the body (curl): no CSRF needed.
	curl := &client{f: f, cookies: map[string]string{}}
	r := curl.mustStatus(curl.do("POST", "/api/v1/refresh", map[string]string{"refresh_token": refresh}), 200)
	next := r.json(t)
	if str(next, "refresh_token") == refresh || str(next, "access_token") == "" {
		t.Fatalf("refresh body %s", r.body)
	}
	// Refresh by cookie needs the CSRF header.
	alice.cookies[web.RefreshCookie] = str(next, "refresh_token")
	noHeader := &client{f: f, cookies: map[string]string{web.RefreshCookie: alice.cookies[web.RefreshCookie], web.CSRFCookie: alice.cookies[web.CSRFCookie]}}
	noHeader.mustStatus(noHeader.do("POST", "/api/v1/refresh", nil), 403)
	r = alice.mustStatus(alice.do("POST", "/api/v1/refresh", nil), 200)
	if r.cookie(web.SessionCookie) == nil || r.cookie(web.RefreshCookie).Value == str(next, "refresh_token") {
		t.Fatal("cookie refresh did not rotate the cookies")
	}

	// Logout revokes the session: its old access token and refresh token die.
	r = alice.mustStatus(alice.do("POST", "/api/v1/logout", nil), 204)
	if ck := r.cookie(web.SessionCookie); ck == nil || ck.Value != "" {
		t.Fatal("logout did not clear the session cookie")
	}
	old := &client{f: f, bearer: access}
	old.mustStatus(old.do("GET", "/api/v1/me", nil), 401)
	curl.mustStatus(curl.do("POST", "/api/v1/refresh", map[string]string{"refresh_token": str(next, "refresh_token")}), 401)
	alice.mustStatus(alice.do("GET", "/api/v1/me", nil), 401)
}
