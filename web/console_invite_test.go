package web_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/web"
)

// acceptForm posts the invitation form with the visitor's form token.
func (v *visitor) acceptForm(token, password string) *page {
	v.get("/invite/"+token, nil)
	form := url.Values{"form_token": {v.cookies[web.FormCookie]}}
	if password != "" {
		form.Set("password", password)
	}
	return v.do("POST", "/invite/"+token, form, nil)
}

func TestConsoleInvitation(t *testing.T) {
	f := newConsoleFixture(t, true)
	owner := f.visitor()
	orgID := owner.signup("owner@example.com")

	// A newcomer opens the link, chooses a password and lands on the
	// organisation's dashboard, signed in.
	token := owner.invite("new@example.com", "member")
	created := owner.post("/org/invitations", url.Values{"email": {"fourth@example.com"}, "role": {"member"}}, htmx)
	if link := created.tid("invite-link").AttrOr("href", ""); link != "/invite/"+created.text("invite-token") {
		t.Fatalf("the organisation page links the invitation as %q", link)
	}
	newcomer := f.visitor()
	page := newcomer.get("/invite/"+token, nil)
	if page.status != 200 || page.tid("invite-password").Length() != 1 || page.tid("invite-login").Length() != 1 ||
		page.tid("invite-form").AttrOr("action", "") != "/invite/"+token {
		t.Fatalf("invitation page for a visitor: %d %s", page.status, page.body)
	}
	if p := newcomer.acceptForm(token, "short"); p.status != fiber.StatusUnprocessableEntity || p.tid("invite-error").Length() != 1 {
		t.Fatalf("too short a password: %d %s", p.status, p.body)
	}
	p := newcomer.acceptForm(token, "a long enough password")
	if p.status != fiber.StatusSeeOther || p.header.Get("Location") != "/dashboard" {
		t.Fatalf("accept: %d %s", p.status, p.body)
	}
	d := newcomer.get("/dashboard", nil)
	if d.status != 200 || d.text("nav-user") != "new@example.com" || d.text("nav-org-name") != "owner@example.com org" {
		t.Fatalf("newcomer's dashboard: %d user %q org %q", d.status, d.text("nav-user"), d.text("nav-org-name"))
	}
	if p := f.visitor().acceptForm(token, "a long enough password"); p.status != fiber.StatusGone || !strings.Contains(p.text("invite-error"), "invitation") {
		t.Fatalf("a used token: %d %s", p.status, p.body)
	}

	// A signed-in user of another organisation accepts with one click; the
	// session moves to the new organisation.
	other := f.visitor()
	other.signup("other@example.com")
	token = owner.invite("other@example.com", "viewer")
	page = other.get("/invite/"+token, nil)
	if page.text("invite-signed-in-as") != "other@example.com" || page.tid("invite-password").Length() != 0 {
		t.Fatalf("invitation page signed in: %s", page.body)
	}
	if p := other.acceptForm(token, ""); p.status != fiber.StatusSeeOther {
		t.Fatalf("signed-in accept: %d %s", p.status, p.body)
	}
	if d := other.get("/org", nil); d.text("org-name") != "owner@example.com org" || d.text("member-role") == "" {
		t.Fatalf("after accepting, the session's organisation: %s", d.body)
	}

	// An invitation for another email is refused for a signed-in user, and a
	// post without the form token is refused outright.
	token = owner.invite("third@example.com", "member")
	if p := other.acceptForm(token, ""); p.status != fiber.StatusForbidden || p.tid("invite-error").Length() != 1 {
		t.Fatalf("someone else's invitation: %d %s", p.status, p.body)
	}
	if p := f.visitor().do("POST", "/invite/"+token, url.Values{"password": {"a long enough password"}}, nil); p.status != fiber.StatusForbidden {
		t.Fatalf("no form token: %d", p.status)
	}
	_ = orgID
}
