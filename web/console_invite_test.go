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
	f := newConsoleFixture(t)
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

// TestConsoleCancelInvitation: the Organisation page cancels a pending
// invitation; its link then answers 410; a viewer cannot cancel.
func TestConsoleCancelInvitation(t *testing.T) {
	f := newConsoleFixture(t)
	owner := f.visitor()
	owner.signup("owner@example.com")
	token := owner.invite("typo@exmaple.com", "member")
	page := owner.get("/org", nil)
	row := page.doc.Find(`[data-testid^="invitation-row-"]`)
	id := strings.TrimPrefix(row.AttrOr("data-testid", ""), "invitation-row-")
	if row.Length() != 1 || page.tid("invitation-cancel-"+id).Length() != 1 {
		t.Fatalf("no cancel button for the pending invitation: %s", page.body)
	}
	viewer := f.join(owner, "viewer@example.com", "viewer")
	if p := viewer.post("/org/invitations/"+id+"/cancel", nil, htmx); p.status != fiber.StatusForbidden {
		t.Fatalf("a viewer cancels: %d", p.status)
	}
	p := owner.post("/org/invitations/"+id+"/cancel", nil, htmx)
	if p.status != 200 || p.header.Get("HX-Reswap") != "delete" {
		t.Fatalf("cancel: %d %v %s", p.status, p.header, p.body)
	}
	if n := owner.get("/org", nil).doc.Find(`[data-testid^="invitation-row-"]`).Length(); n != 0 {
		t.Fatalf("%d pending invitations after cancelling", n)
	}
	if p := f.visitor().acceptForm(token, "a long enough password"); p.status != fiber.StatusGone {
		t.Fatalf("the cancelled link: %d %s", p.status, p.body)
	}
	if p := owner.post("/org/invitations/"+id+"/cancel", nil, nil); p.status != fiber.StatusNotFound {
		t.Fatalf("cancelling twice: %d", p.status)
	}
}
