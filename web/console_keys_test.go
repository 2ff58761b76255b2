package web_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/heddle-gw/heddle/web"
)

func TestConsoleKeysPageAndPartial(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	v.signup("keys@example.com")
	full := v.get("/keys", nil)
	if full.status != 200 || !full.isFullPage() || full.tid("nav-keys").Length() != 1 || full.tid("key-form").Length() != 1 ||
		full.tid("keys-empty").Length() != 1 {
		t.Fatalf("full keys page: %d %s", full.status, full.body)
	}
	if token, _ := full.tid("key-form").Find(`input[name="csrf_token"]`).Attr("value"); token != v.cookies[web.CSRFCookie] {
		t.Errorf("form CSRF %q, cookie %q", token, v.cookies[web.CSRFCookie])
	}
	hx, _ := full.doc.Find("body").Attr("hx-headers")
	if !strings.Contains(hx, v.cookies[web.CSRFCookie]) || !strings.Contains(hx, "X-CSRF-Token") {
		t.Errorf("body hx-headers %q do not carry the CSRF token", hx)
	}
}

func TestConsoleCSRF(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	v.signup("csrf@example.com")
	form := func(token string) url.Values {
		return url.Values{"name": {"k"}, "scopes": {"inference"}, "csrf_token": {token}}
	}
	for _, tc := range []struct {
		name   string
		form   url.Values
		h      hdr
		status int
	}{
		{"no token", url.Values{"name": {"k"}, "scopes": {"inference"}, "csrf_token": {""}}, nil, 403},
		{"wrong token", form("not-the-token"), nil, 403},
		{"wrong header", form(""), hdr{"HX-Request": "true", web.CSRFHeader: "nope"}, 403},
		{"form field", form(v.cookies[web.CSRFCookie]), nil, 201},
		{"htmx header", form(""), hdr{"HX-Request": "true", web.CSRFHeader: v.cookies[web.CSRFCookie]}, 201},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := v.post("/keys", tc.form, tc.h)
			if p.status != tc.status {
				t.Fatalf("status %d, want %d: %s", p.status, tc.status, p.body)
			}
			if tc.status == 403 && (p.tid("error-panel").Length() != 1 || p.tid("key-secret").Length() != 0) {
				t.Errorf("refusal page: %s", p.body)
			}
		})
	}
	if n := v.get("/keys", nil).doc.Find(`[data-testid^="key-row-"]`).Length(); n != 2 {
		t.Errorf("%d keys exist, want the 2 created with a token", n)
	}
	// Cookies of another session do not validate this session's token.
	other := f.visitor()
	other.signup("other@example.com")
	other.cookies[web.CSRFCookie] = v.cookies[web.CSRFCookie]
	if p := other.post("/keys", form(v.cookies[web.CSRFCookie]), nil); p.status != 403 {
		t.Errorf("another session's CSRF token was accepted: %d", p.status)
	}
}

func TestConsoleCreateKey(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	v.signup("create@example.com")
	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		field  string // field error expected
	}{
		{"bad rpm", url.Values{"name": {"k1"}, "scopes": {"inference"}, "rpm": {"abc"}}, 422, "rpm"},
		{"negative budget", url.Values{"name": {"k1"}, "scopes": {"inference"}, "daily_budget": {"-3"}}, 422, "daily_budget"},
		{"no scopes", url.Values{"name": {"k1"}}, 422, "scopes"},
		{"unknown scope", url.Values{"name": {"k1"}, "scopes": {"admin"}}, 422, "scopes"},
		{"bad policy", url.Values{"name": {"k1"}, "scopes": {"inference"}, "policy": {"yolo"}}, 422, "policy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := v.post("/keys", tc.form, htmx)
			if p.status != tc.status || p.isFullPage() {
				t.Fatalf("status %d full %v, want %d partial: %s", p.status, p.isFullPage(), tc.status, p.body)
			}
			if p.tid("field-error-"+tc.field).Length() != 1 || p.tid("key-form").Length() != 1 || p.tid("key-secret").Length() != 0 {
				t.Errorf("no re-rendered form with a %s error: %s", tc.field, p.body)
			}
			if got, _ := p.tid("key-name-input").Attr("value"); got != "k1" {
				t.Errorf("the form lost the name: %q", got)
			}
		})
	}
	// The same invalid form without htmx re-renders the whole page with 422.
	if p := v.post("/keys", url.Values{"name": {"k1"}, "scopes": {"inference"}, "tpm": {"-1"}}, nil); p.status != 422 || !p.isFullPage() ||
		p.tid("field-error-tpm").Length() != 1 {
		t.Errorf("non-htmx invalid form: %d full %v", p.status, p.isFullPage())
	}

	p := v.post("/keys", url.Values{
		"name": {"ci"}, "scopes": {"inference", "analytics:read"}, "policy": {"route-all"},
		"rpm": {"60"}, "tpm": {"1000"}, "daily_budget": {"2.5"}, "monthly_budget": {"$40"},
	}, htmx)
	if p.status != 201 || p.isFullPage() {
		t.Fatalf("create: %d %s", p.status, p.body)
	}
	secret := p.text("key-secret")
	if !strings.HasPrefix(secret, "rk_") || len(secret) < 35 {
		t.Fatalf("secret %q", secret)
	}
	list := p.doc.Find(`#keys-list[hx-swap-oob="true"]`)
	row := list.Find(`[data-testid^="key-row-"]`)
	if row.Length() != 1 {
		t.Fatalf("out-of-band list has %d rows: %s", row.Length(), p.body)
	}
	cells := row.Find("td").Map(func(_ int, s *goquery.Selection) string { return strings.TrimSpace(s.Text()) })
	want := []string{secret[:11], "ci", "", "inference, analytics:read", "route-all", "60 rpm, 1000 tpm, $2.50/day, $40.00/month", "$0.00", "never", "never"}
	for i, w := range want {
		if cells[i] != w {
			t.Errorf("cell %d = %q, want %q", i, cells[i], w)
		}
	}
	if got := strings.TrimSpace(row.Find(`[data-testid="key-status"]`).Text()); got != "active" {
		t.Errorf("status %q", got)
	}
	later := v.get("/keys", nil)
	if strings.Contains(later.body, secret) || later.doc.Find(`[data-testid^="key-row-"]`).Length() != 1 {
		t.Errorf("the keys page shows the secret again or lost the key")
	}

	// Revoke through htmx: the row comes back revoked, without its button.
	id := strings.TrimPrefix(row.AttrOr("data-testid", ""), "key-row-")
	r := v.post("/keys/"+id+"/revoke", nil, htmx)
	if r.status != 200 || r.isFullPage() || r.text("key-status") != "revoked" || r.tid("key-revoke-"+id).Length() != 0 {
		t.Fatalf("revoke: %d %s", r.status, r.body)
	}
	// Another organisation cannot revoke it, nor see it.
	other := f.visitor()
	other.signup("mallory@example.com")
	if p := other.post("/keys/"+id+"/revoke", nil, nil); p.status != 404 {
		t.Errorf("foreign revoke answered %d", p.status)
	}
	if strings.Contains(other.get("/keys", nil).body, id) {
		t.Error("another organisation sees the key")
	}
}
