package web_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// createKey creates a key through the console and returns its id.
func (v *visitor) createKey(name string) string {
	v.f.t.Helper()
	p := v.post("/keys", url.Values{"name": {name}, "scopes": {"inference"}}, htmx)
	if p.status != 201 {
		v.f.t.Fatalf("create key %s: %d %s", name, p.status, p.body)
	}
	var id string
	p.doc.Find(`#keys-list [data-testid^="key-row-"]`).Each(func(_ int, s *goquery.Selection) {
		if strings.TrimSpace(s.Find(`[data-testid="key-name"]`).Text()) == name {
			id = strings.TrimPrefix(s.AttrOr("data-testid", ""), "key-row-")
		}
	})
	if id == "" {
		v.f.t.Fatalf("no row for key %s: %s", name, p.body)
	}
	return id
}

// row re-parses a partial holding table rows inside a table, where an HTML
// parser keeps their tr and td elements (a browser swaps them into one).
func row(t *testing.T, p *page) *page {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader("<table><tbody>" + p.body + "</tbody></table>"))
	if err != nil {
		t.Fatal(err)
	}
	return &page{status: p.status, header: p.header, body: p.body, doc: doc}
}

func TestConsoleEditKey(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	v.signup("edit@example.com")
	id := v.createKey("ci")

	// The edit button swaps the row for its form, filled from the key.
	list := v.get("/keys", nil)
	edit := list.tid("key-edit-" + id)
	if edit.AttrOr("hx-get", "") != "/keys/"+id+"/edit" || edit.AttrOr("hx-target", "") != "closest tr" || edit.AttrOr("href", "") != "/keys/"+id+"/edit" {
		t.Fatalf("edit button: %s", list.body)
	}
	form := row(t, v.get("/keys/"+id+"/edit", htmx))
	if form.status != 200 || form.isFullPage() || form.tid("key-edit-form").Length() != 1 || form.tid("key-row-"+id).Length() != 1 {
		t.Fatalf("edit row: %d %s", form.status, form.body)
	}
	for tid, want := range map[string]string{"key-edit-rpm": "0", "key-edit-tpm": "0", "key-edit-alpha": "", "key-edit-daily": ""} {
		if got := form.tid(tid).AttrOr("value", "?"); got != want {
			t.Errorf("%s = %q, want %q", tid, got, want)
		}
	}
	if got, _ := form.tid("key-edit-form").Find(`input[name="csrf_token"]`).Attr("value"); got == "" {
		t.Error("the edit form has no CSRF token")
	}
	// Without htmx the whole page shows the row as its form.
	if p := v.get("/keys/"+id+"/edit", nil); p.status != 200 || !p.isFullPage() || p.tid("key-edit-form").Length() != 1 || p.tid("key-form").Length() != 1 {
		t.Errorf("non-htmx edit page: %d", p.status)
	}

	for _, tc := range []struct {
		name  string
		form  url.Values
		field string
	}{
		{"bad alpha", url.Values{"policy": {"explicit"}, "alpha": {"x"}, "rpm": {"5"}}, "alpha"},
		{"alpha out of range", url.Values{"policy": {"explicit"}, "alpha": {"1.5"}, "rpm": {"5"}}, "alpha"},
		{"negative rpm", url.Values{"policy": {"explicit"}, "rpm": {"-1"}}, "rpm"},
		{"bad budget", url.Values{"policy": {"explicit"}, "rpm": {"5"}, "monthly_budget": {"lots"}}, "monthly_budget"},
		{"bad policy", url.Values{"policy": {"yolo"}, "rpm": {"5"}}, "policy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := row(t, v.post("/keys/"+id+"/edit", tc.form, htmx))
			if p.status != 422 || p.isFullPage() || p.tid("key-edit-form").Length() != 1 || p.tid("field-error-"+tc.field).Length() != 1 {
				t.Fatalf("status %d: %s", p.status, p.body)
			}
			if got := p.tid("key-edit-rpm").AttrOr("value", ""); got != tc.form.Get("rpm") {
				t.Errorf("the form lost the rpm typed: %q", got)
			}
		})
	}
	if got := v.get("/keys", nil).text("key-limits"); got != "none" {
		t.Fatalf("a refused edit changed the key: limits %q", got)
	}

	p := row(t, v.post("/keys/"+id+"/edit", url.Values{
		"policy": {"route-all"}, "alpha": {"0.25"}, "rpm": {"60"}, "tpm": {"5000"}, "daily_budget": {"1.5"}, "monthly_budget": {"$30"},
	}, htmx))
	if p.status != 200 || p.isFullPage() || p.tid("key-edit-form").Length() != 0 || p.text("key-saved") != "saved" {
		t.Fatalf("save: %d %s", p.status, p.body)
	}
	want := map[string]string{"key-limits": "60 rpm, 5000 tpm, $1.50/day, $30.00/month", "key-routing": "route-all (dial 0.25)"}
	for tid, w := range want {
		if got := p.text(tid); got != w {
			t.Errorf("saved row %s = %q, want %q", tid, got, w)
		}
	}
	// Stored: the list and the admin API show it.
	later := v.get("/keys", nil)
	for tid, w := range want {
		if got := later.text(tid); got != w {
			t.Errorf("list %s = %q, want %q", tid, got, w)
		}
	}
	again := row(t, v.get("/keys/"+id+"/edit", htmx))
	if again.tid("key-edit-daily").AttrOr("value", "") != "1.5" || again.tid("key-edit-alpha").AttrOr("value", "") != "0.25" ||
		again.tid("key-edit-policy").Find("option[selected]").AttrOr("value", "") != "route-all" {
		t.Errorf("edit form after save: %s", again.body)
	}
	// Soft budgets: the row says so, the form keeps it.
	p = row(t, v.post("/keys/"+id+"/edit", url.Values{
		"policy": {"route-all"}, "alpha": {"0.25"}, "rpm": {"60"}, "tpm": {"5000"}, "daily_budget": {"1.5"}, "monthly_budget": {"$30"},
		"budget_mode": {"soft"},
	}, htmx))
	if got := p.text("key-limits"); p.status != 200 || got != "60 rpm, 5000 tpm, $1.50/day, $30.00/month (alert only)" {
		t.Errorf("soft budgets row: %d %q", p.status, got)
	}
	if f := row(t, v.get("/keys/"+id+"/edit", htmx)); f.tid("key-edit-budget-mode").Find("option[selected]").AttrOr("value", "") != "soft" {
		t.Errorf("edit form after a soft save: %s", f.body)
	}
	if p := row(t, v.post("/keys/"+id+"/edit", url.Values{"policy": {"explicit"}, "budget_mode": {"sometimes"}}, htmx)); p.status != 422 {
		t.Errorf("unknown budget mode: %d", p.status)
	}
	// Clearing the dial and the limits.
	p = row(t, v.post("/keys/"+id+"/edit", url.Values{"policy": {"explicit"}, "alpha": {""}, "rpm": {""}, "tpm": {"0"}}, htmx))
	if p.status != 200 || p.text("key-limits") != "none" || p.text("key-routing") != "explicit" {
		t.Errorf("cleared: %d %s", p.status, p.body)
	}
	// Cancel swaps the plain row back; without htmx it goes to the list.
	if c := row(t, v.get("/keys/"+id+"/row", htmx)); c.status != 200 || c.tid("key-edit-form").Length() != 0 || c.tid("key-edit-"+id).Length() != 1 {
		t.Errorf("cancel: %d %s", c.status, c.body)
	}
	if c := v.get("/keys/"+id+"/row", nil); c.status != 303 {
		t.Errorf("non-htmx cancel: %d", c.status)
	}
	// Without htmx a save redirects to the list.
	if p := v.post("/keys/"+id+"/edit", url.Values{"policy": {"explicit"}, "rpm": {"7"}}, nil); p.status != 303 || p.header.Get("Location") != "/keys" {
		t.Errorf("non-htmx save: %d %s", p.status, p.header.Get("Location"))
	}

	// Another organisation cannot open or change it.
	other := f.visitor()
	other.signup("eve@example.com")
	if p := other.get("/keys/"+id+"/edit", htmx); p.status != 404 {
		t.Errorf("foreign edit form: %d", p.status)
	}
	if p := other.post("/keys/"+id+"/edit", url.Values{"policy": {"explicit"}, "rpm": {"1"}}, htmx); p.status != 404 {
		t.Errorf("foreign save: %d", p.status)
	}
	// A revoked key cannot be changed.
	v.post("/keys/"+id+"/revoke", nil, htmx)
	if p := row(t, v.post("/keys/"+id+"/edit", url.Values{"policy": {"explicit"}, "rpm": {"9"}}, htmx)); p.status != 409 ||
		p.text("key-edit-error") != "This key is revoked; it can no longer be changed." {
		t.Errorf("revoked key: %d %s", p.status, p.body)
	}
	if got := v.get("/keys", nil).text("key-limits"); got != "7 rpm" {
		t.Errorf("revoked key limits %q", got)
	}
}

func TestConsoleEditKeyRoles(t *testing.T) {
	f := newConsoleFixture(t)
	owner := f.visitor()
	owner.signup("keyowner@example.com")
	member := f.join(owner, "dev@example.com", "member")
	viewer := f.join(owner, "ro@example.com", "viewer")
	ownersKey := owner.createKey("owners")
	mine := member.createKey("mine")

	// A member edits the keys they created, not the others.
	mp := member.get("/keys", nil)
	if mp.tid("key-edit-"+mine).Length() != 1 || mp.tid("key-edit-"+ownersKey).Length() != 0 {
		t.Errorf("member's edit buttons: %s", mp.body)
	}
	if p := row(t, member.post("/keys/"+mine+"/edit", url.Values{"policy": {"explicit"}, "rpm": {"30"}}, htmx)); p.status != 200 || p.text("key-limits") != "30 rpm" {
		t.Errorf("member edits own key: %d %s", p.status, p.body)
	}
	if p := member.get("/keys/"+ownersKey+"/edit", htmx); p.status != 403 {
		t.Errorf("member opens the owner's key: %d", p.status)
	}
	if p := row(t, member.post("/keys/"+ownersKey+"/edit", url.Values{"policy": {"explicit"}, "rpm": {"1"}}, htmx)); p.status != 403 ||
		p.tid("key-edit-error").Length() != 1 {
		t.Errorf("member saves the owner's key: %d %s", p.status, p.body)
	}
	// A viewer gets no edit button and a refusal.
	if vp := viewer.get("/keys", nil); vp.doc.Find(`[data-testid^="key-edit-"]`).Length() != 0 {
		t.Errorf("viewer's edit buttons: %s", vp.body)
	}
	if p := viewer.post("/keys/"+mine+"/edit", url.Values{"policy": {"explicit"}, "rpm": {"1"}}, htmx); p.status != 403 {
		t.Errorf("viewer saves: %d", p.status)
	}
	// The owner (admin rights) edits the member's key.
	if p := row(t, owner.post("/keys/"+mine+"/edit", url.Values{"policy": {"explicit"}, "rpm": {"12"}}, htmx)); p.status != 200 || p.text("key-limits") != "12 rpm" {
		t.Errorf("owner edits the member's key: %d %s", p.status, p.body)
	}
}
