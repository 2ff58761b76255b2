package web_test

import (
	"net/url"
	"testing"

	"github.com/gofiber/fiber/v2"
)

func TestConsoleOrgSwitcher(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	first := v.signup("multi@example.com")
	outsider := f.visitor()
	foreign := outsider.signup("outsider@example.com")

	p := v.get("/orgs", nil)
	if p.status != 200 || p.tid("orgs-row-"+first).Length() != 1 || p.tid("orgs-current").Length() != 1 ||
		p.tid("nav-org-name").AttrOr("href", "") != "/orgs" {
		t.Fatalf("switcher with one organisation: %d %s", p.status, p.body)
	}
	if p := v.post("/orgs", url.Values{"name": {""}}, nil); p.status != fiber.StatusUnprocessableEntity || p.tid("field-error-name").Length() != 1 {
		t.Fatalf("empty name: %d %s", p.status, p.body)
	}
	if p := v.post("/orgs", url.Values{"name": {"Second Org"}}, nil); p.status != fiber.StatusSeeOther {
		t.Fatalf("create: %d %s", p.status, p.body)
	}
	if d := v.get("/dashboard", nil); d.text("nav-org-name") != "Second Org" {
		t.Fatalf("after creating, the session is in %q", d.text("nav-org-name"))
	}
	p = v.get("/orgs", nil)
	if p.doc.Find(`[data-testid^="orgs-row-"]`).Length() != 2 || p.tid("orgs-switch-"+first).Length() != 1 {
		t.Fatalf("switcher with two organisations: %s", p.body)
	}
	if p := v.post("/orgs/"+first+"/switch", nil, nil); p.status != fiber.StatusSeeOther {
		t.Fatalf("switch: %d %s", p.status, p.body)
	}
	if d := v.get("/dashboard", nil); d.text("nav-org-name") != "multi@example.com org" {
		t.Fatalf("after switching back, the session is in %q", d.text("nav-org-name"))
	}
	if p := v.post("/orgs/"+foreign+"/switch", nil, nil); p.status != fiber.StatusNotFound {
		t.Fatalf("switching into another user's organisation: %d", p.status)
	}
	if p := v.do("POST", "/orgs/"+first+"/switch", url.Values{}, nil); p.status != fiber.StatusForbidden {
		t.Fatalf("switch without the CSRF token: %d", p.status)
	}
}
