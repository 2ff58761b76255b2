package web_test

import (
	"context"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/web"
)

// invite invites email with role through the console (htmx) and returns the
// token the page shows.
func (v *visitor) invite(email, role string) string {
	v.f.t.Helper()
	p := v.post("/org/invitations", url.Values{"email": {email}, "role": {role}}, htmx)
	if p.status != 201 || p.tid("invite-created").Length() != 1 {
		v.f.t.Fatalf("invite %s as %s: %d %s", email, role, p.status, p.body)
	}
	return p.text("invite-token")
}

// join invites email with role (owner's console) and accepts the invitation
// through the admin API with a password, as the invitee would; it returns
// the invitee's browser, signed in to the organisation.
func (f *consoleFixture) join(owner *visitor, email, role string) *visitor {
	f.t.Helper()
	token := owner.invite(email, role)
	v := f.visitor()
	req := httptest.NewRequest("POST", "/api/v1/invitations/"+token+"/accept",
		strings.NewReader(`{"password":"correct horse battery staple"}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := f.app.Test(req, -1)
	if err != nil {
		f.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		f.t.Fatalf("accept invitation of %s: %d", email, resp.StatusCode)
	}
	for _, c := range resp.Cookies() {
		v.cookies[c.Name] = c.Value
	}
	return v
}

// memberID returns the user id of the member row showing email.
func memberID(t *testing.T, p *page, email string) string {
	t.Helper()
	var id string
	p.doc.Find(`[data-testid^="member-row-"]`).Each(func(_ int, s *goquery.Selection) {
		if strings.TrimSpace(s.Find(`[data-testid="member-email"]`).Text()) == email {
			id = strings.TrimPrefix(s.AttrOr("data-testid", ""), "member-row-")
		}
	})
	if id == "" {
		t.Fatalf("no member row for %s: %s", email, p.body)
	}
	return id
}

func TestConsoleOrgPage(t *testing.T) {
	f := newConsoleFixture(t)
	owner := f.visitor()
	orgID := owner.signup("owner@example.com")
	p := owner.get("/org", nil)
	if p.status != 200 || !p.isFullPage() || p.tid("nav-org").AttrOr("class", "") != "active" {
		t.Fatalf("org page: %d %s", p.status, p.body)
	}
	for id, want := range map[string]string{
		"org-name": "owner@example.com org", "org-id": orgID, "org-your-role": "owner",
		"member-email": "owner@example.com", "member-role": "owner", "member-you": "you",
	} {
		if got := p.text(id); got != want {
			t.Errorf("%s = %q, want %q", id, got, want)
		}
	}
	self := memberID(t, p, "owner@example.com")
	if p.tid("member-remove-"+self).Length() != 0 || p.tid("member-role-select-"+self).Length() != 1 {
		t.Error("the owner's own row: want a role control and no remove button")
	}
	if p.tid("invite-form").Length() != 1 || p.tid("invitations-empty").Length() != 1 || p.tid("org-readonly").Length() != 0 {
		t.Errorf("owner's controls: %s", p.body)
	}
	if token, _ := p.tid("invite-form").Find(`input[name="csrf_token"]`).Attr("value"); token != owner.cookies[web.CSRFCookie] {
		t.Errorf("invite form CSRF %q", token)
	}
	var roles []string
	p.tid("invite-role").Find("option").Each(func(_ int, s *goquery.Selection) { roles = append(roles, s.AttrOr("value", "")) })
	if strings.Join(roles, ",") != "owner,admin,member,viewer" {
		t.Errorf("owner may invite as %v", roles)
	}
}

func TestConsoleOrgInvite(t *testing.T) {
	f := newConsoleFixture(t)
	owner := f.visitor()
	owner.signup("boss@example.com")
	for _, tc := range []struct {
		name, email, role string
		status            int
		field             string // field error expected, "" for a form-level one
		message           string
	}{
		{"bad email", "not-an-email", "member", 422, "email", ""},
		{"bad role", "x@example.com", "god", 422, "role", ""},
		{"already a member", "boss@example.com", "admin", 409, "", "boss@example.com is already a member of this organisation."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := owner.post("/org/invitations", url.Values{"email": {tc.email}, "role": {tc.role}}, htmx)
			if p.status != tc.status || p.isFullPage() || p.tid("invite-form").Length() != 1 || p.tid("invite-token").Length() != 0 {
				t.Fatalf("status %d full %v: %s", p.status, p.isFullPage(), p.body)
			}
			if tc.field != "" && p.tid("field-error-"+tc.field).Length() != 1 {
				t.Errorf("no %s field error: %s", tc.field, p.body)
			}
			if tc.message != "" && p.text("invite-error") != tc.message {
				t.Errorf("error %q, want %q", p.text("invite-error"), tc.message)
			}
			if got, _ := p.tid("invite-email").Attr("value"); got != tc.email {
				t.Errorf("the form lost the email: %q", got)
			}
		})
	}

	p := owner.post("/org/invitations", url.Values{"email": {"New@Example.com"}, "role": {"admin"}}, htmx)
	if p.status != 201 || p.isFullPage() {
		t.Fatalf("invite: %d %s", p.status, p.body)
	}
	token := p.text("invite-token")
	if !strings.HasPrefix(token, "inv_") || p.text("invite-accept-path") != "POST /api/v1/invitations/"+token+"/accept" {
		t.Errorf("token %q, accept path %q", token, p.text("invite-accept-path"))
	}
	list := p.doc.Find(`#org-invitations[hx-swap-oob="true"]`)
	if got := strings.TrimSpace(list.Find(`[data-testid="invitation-email"]`).Text()); got != "new@example.com" {
		t.Errorf("pending invitation for %q: %s", got, p.body)
	}
	if got := strings.TrimSpace(list.Find(`[data-testid="invitation-role"]`).Text()); got != "admin" {
		t.Errorf("pending invitation role %q", got)
	}
	if got, _ := p.tid("invite-email").Attr("value"); got != "" {
		t.Errorf("the fresh form keeps %q", got)
	}
	// The token is shown once: the page lists the invitation, not its token.
	later := owner.get("/org", nil)
	if strings.Contains(later.body, token) || later.doc.Find(`[data-testid^="invitation-row-"]`).Length() != 1 {
		t.Errorf("org page after invite: %s", later.body)
	}
	// Without htmx the whole page answers, token included.
	full := owner.post("/org/invitations", url.Values{"email": {"other@example.com"}, "role": {"viewer"}}, nil)
	if full.status != 201 || !full.isFullPage() || !strings.HasPrefix(full.text("invite-token"), "inv_") ||
		full.doc.Find(`[data-testid^="invitation-row-"]`).Length() != 2 {
		t.Errorf("non-htmx invite: %d %s", full.status, full.body)
	}
	// The invitee accepts with the token through the API and appears as a member.
	f.join(owner, "joiner@example.com", "member")
	if p := owner.get("/org", nil); memberID(t, p, "joiner@example.com") == "" {
		t.Error("joined member not listed")
	}
}

func TestConsoleOrgRolesAndRemoval(t *testing.T) {
	f := newConsoleFixture(t)
	owner := f.visitor()
	org := owner.signup("own@example.com")
	admin := f.join(owner, "adm@example.com", "admin")
	viewer := f.join(owner, "view@example.com", "viewer")
	page := owner.get("/org", nil)
	ownerID, adminID, viewerID := memberID(t, page, "own@example.com"), memberID(t, page, "adm@example.com"), memberID(t, page, "view@example.com")

	// A viewer sees the organisation read-only.
	vp := viewer.get("/org", nil)
	if vp.status != 200 || vp.tid("org-readonly").Length() != 1 || vp.tid("invite-form").Length() != 0 ||
		vp.doc.Find(`[data-testid^="member-role-select-"], [data-testid^="member-remove-"]`).Length() != 0 ||
		vp.tid("invitations-table").Length() != 0 || vp.text("org-your-role") != "viewer" {
		t.Errorf("viewer's org page: %s", vp.body)
	}
	if vp.doc.Find(`[data-testid^="member-row-"]`).Length() != 3 {
		t.Errorf("viewer sees %d members, want 3", vp.doc.Find(`[data-testid^="member-row-"]`).Length())
	}
	// Its forged posts are refused with the reason in the row.
	if p := viewer.post("/org/members/"+adminID+"/role", url.Values{"role": {"viewer"}}, htmx); p.status != 403 ||
		p.text("member-error") != "your role does not allow this" || p.text("member-role") != "admin" {
		t.Errorf("viewer re-roles: %d %s", p.status, p.body)
	}
	if p := viewer.post("/org/invitations", url.Values{"email": {"z@example.com"}, "role": {"member"}}, htmx); p.status != 403 ||
		p.text("invite-error") != "Only admins and owners can invite members." {
		t.Errorf("viewer invites: %d %s", p.status, p.body)
	}

	// An admin manages non-owners only, and cannot grant owner.
	ap := admin.get("/org", nil)
	if ap.tid("member-role-select-"+ownerID).Length() != 0 || ap.tid("member-remove-"+ownerID).Length() != 0 ||
		ap.tid("member-role-select-"+viewerID).Length() != 1 || ap.tid("member-role-select-"+viewerID).Find(`option[value="owner"]`).Length() != 0 {
		t.Errorf("admin's controls: %s", ap.body)
	}
	if p := admin.post("/org/members/"+viewerID+"/role", url.Values{"role": {"owner"}}, htmx); p.status != 403 || p.text("member-role") != "viewer" {
		t.Errorf("admin grants owner: %d %s", p.status, p.body)
	}
	if p := admin.post("/org/invitations", url.Values{"email": {"o2@example.com"}, "role": {"owner"}}, htmx); p.status != 403 ||
		p.text("invite-error") != "Your role does not allow inviting with the role owner." {
		t.Errorf("admin invites an owner: %d %s", p.status, p.body)
	}

	// The owner promotes the viewer: the row comes back with its new role.
	p := owner.post("/org/members/"+viewerID+"/role", url.Values{"role": {"member"}}, htmx)
	if p.status != 200 || p.isFullPage() || p.text("member-role") != "member" || p.text("member-saved") != "Role changed to member." {
		t.Fatalf("change role: %d %s", p.status, p.body)
	}
	if got := viewer.get("/org", nil).text("org-your-role"); got != "member" {
		t.Errorf("the promoted member sees role %q", got)
	}
	// The last owner cannot step down: 409 and the reason in the row.
	p = owner.post("/org/members/"+ownerID+"/role", url.Values{"role": {"admin"}}, htmx)
	if p.status != 409 || p.text("member-role") != "owner" ||
		p.text("member-error") != "An organisation needs at least one owner: make someone else owner first." {
		t.Errorf("last owner steps down: %d %s", p.status, p.body)
	}
	// Without htmx a change redirects back to the page.
	if p := owner.post("/org/members/"+adminID+"/role", url.Values{"role": {"member"}}, nil); p.status != 303 || p.header.Get("Location") != "/org" {
		t.Errorf("non-htmx change: %d %s", p.status, p.header.Get("Location"))
	}

	// Removal: the row is deleted for htmx; the member loses access.
	p = owner.post("/org/members/"+viewerID+"/remove", nil, htmx)
	if p.status != 200 || strings.TrimSpace(p.body) != "" || p.header.Get("HX-Reswap") != "delete" {
		t.Fatalf("remove: %d %q %v", p.status, p.body, p.header)
	}
	if n := owner.get("/org", nil).doc.Find(`[data-testid^="member-row-"]`).Length(); n != 2 {
		t.Errorf("%d members after removal, want 2", n)
	}
	if p := viewer.get("/org", nil); p.status != 403 {
		t.Errorf("removed member opens the org page: %d", p.status)
	}
	// Nor any page with the organisation's analytics (the session still
	// names the organisation).
	if err := f.reader.InsertRequests(context.Background(), []analytics.Request{
		request(org, "req-after-removal", time.Minute, "gpt-5-mini", "explicit", 200, "", 5, 5)}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/dashboard", "/requests", "/requests/req-after-removal", "/keys", "/credentials"} {
		if p := viewer.get(path, nil); p.status != 403 || strings.Contains(p.body, "req-after-removal") {
			t.Errorf("removed member opens %s: %d", path, p.status)
		}
	}

	// Another organisation's owner cannot touch these members.
	other := f.visitor()
	other.signup("mallory@example.com")
	if p := other.post("/org/members/"+adminID+"/remove", nil, htmx); p.status != 404 {
		t.Errorf("foreign removal: %d %s", p.status, p.body)
	}
	if p := other.post("/org/members/"+adminID+"/role", url.Values{"role": {"viewer"}}, htmx); p.status != 404 {
		t.Errorf("foreign role change: %d %s", p.status, p.body)
	}
	if strings.Contains(other.get("/org", nil).body, "adm@example.com") {
		t.Error("another organisation lists this organisation's members")
	}
}
