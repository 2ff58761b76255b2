package web_test

import (
	"net/url"
	"strings"
	"testing"
)

func TestConsoleCredentials(t *testing.T) {
	f := newConsoleFixture(t)
	v := f.visitor()
	v.signup("byok@example.com")
	const secret = "sk-console-SECRET-9f8e7d6c5b4a"
	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		field  string
	}{
		{"short secret", url.Values{"provider": {"openai"}, "secret": {"sk-1"}}, 422, "secret"},
		{"bad provider", url.Values{"provider": {"Open AI!"}, "secret": {secret}}, 422, "provider"},
		{"bad base url", url.Values{"provider": {"openai"}, "secret": {secret}, "base_url": {"ftp://x"}}, 422, "base_url"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := v.post("/credentials", tc.form, htmx)
			if p.status != tc.status || p.isFullPage() || p.tid("field-error-"+tc.field).Length() != 1 {
				t.Fatalf("status %d full %v: %s", p.status, p.isFullPage(), p.body)
			}
			if strings.Contains(p.body, tc.form.Get("secret")) {
				t.Error("the re-rendered form echoes the secret")
			}
		})
	}
	p := v.post("/credentials", url.Values{"provider": {"openai"}, "label": {"team"}, "secret": {secret}}, htmx)
	if p.status != 201 || p.tid("credential-added").Length() != 1 || strings.Contains(p.body, secret) {
		t.Fatalf("add: %d %s", p.status, p.body)
	}
	list := p.doc.Find(`#credentials-list[hx-swap-oob="true"]`)
	if got := strings.TrimSpace(list.Find(`[data-testid="credential-last-four"]`).Text()); got != "…4a" && got != "…5b4a" {
		t.Errorf("last four shown as %q", got)
	}
	if got := strings.TrimSpace(list.Find(`[data-testid="credential-label"]`).Text()); got != "team" {
		t.Errorf("label %q", got)
	}
	full := v.get("/credentials", nil)
	if strings.Contains(full.body, secret) || full.text("credential-last-four") != "…5b4a" || full.text("credential-provider") != "openai" {
		t.Errorf("credentials page: %s", full.body)
	}
	if dup := v.post("/credentials", url.Values{"provider": {"openai"}, "secret": {secret}}, htmx); dup.status != 409 ||
		dup.tid("credential-form-error").Length() != 1 {
		t.Errorf("duplicate provider: %d %s", dup.status, dup.body)
	}
	row := full.doc.Find(`[data-testid^="credential-row-"]`)
	id := strings.TrimPrefix(row.AttrOr("data-testid", ""), "credential-row-")
	other := f.visitor()
	other.signup("eve@example.com")
	if d := other.post("/credentials/"+id+"/delete", nil, htmx); d.status != 404 {
		t.Errorf("foreign delete answered %d", d.status)
	}
	d := v.post("/credentials/"+id+"/delete", nil, htmx)
	if d.status != 200 || d.isFullPage() || d.tid("credentials-empty").Length() != 1 {
		t.Fatalf("delete: %d %s", d.status, d.body)
	}
	if n := v.get("/credentials", nil).doc.Find(`[data-testid^="credential-row-"]`).Length(); n != 0 {
		t.Errorf("%d credentials left", n)
	}
}
