package web_test

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/web"
)

func TestConsoleRoutingPage(t *testing.T) {
	store := newRoutingStore()
	f := newConsoleFixture(t, withRouting(store, 0))
	v := f.visitor()
	org := v.signup("route@example.com")
	if _, err := store.PutBundle(context.Background(), org, &routing.Bundle{ID: "b-1", Models: []string{"claude-haiku-4-5", "gpt-5-mini"}}); err != nil {
		t.Fatal(err)
	}

	full := v.get("/routing", nil)
	if full.status != 200 || !full.isFullPage() || full.tid("nav-routing").AttrOr("class", "") != "active" ||
		full.tid("routing-form").Length() != 1 || full.tid("routing-bundle-b-1").Length() != 1 || full.tid("routing-save").Length() != 1 {
		t.Fatalf("full routing page: %d %s", full.status, full.body)
	}
	if token, _ := full.tid("routing-form").Find(`input[name="csrf_token"]`).Attr("value"); token != v.cookies[web.CSRFCookie] {
		t.Errorf("form CSRF %q", token)
	}
	if hx := v.get("/routing", htmx); hx.status != 200 || hx.isFullPage() || hx.tid("routing-form").Length() != 1 {
		t.Errorf("htmx routing form: %d %s", hx.status, hx.body)
	}

	p := v.post("/routing", url.Values{
		"alpha": {"0.3"}, "allow": {"gpt-5-mini\r\nclaude-haiku-4-5\n"}, "deny": {"claude-sonnet-4-5"},
		"cache_bypass": {"1"}, "bundle_id": {"b-1"}, "aliases": {"Claude-Opus-5-5 = claude-haiku-4-5\r\n\nfast=auto"},
	}, htmx)
	if p.status != 200 || p.isFullPage() || p.tid("routing-saved").Length() != 1 {
		t.Fatalf("save: %d %s", p.status, p.body)
	}
	s := store.settings[org]
	if s.Alpha == nil || *s.Alpha != 0.3 || !slices.Equal(s.Allow, []string{"gpt-5-mini", "claude-haiku-4-5"}) ||
		!slices.Equal(s.Deny, []string{"claude-sonnet-4-5"}) || !s.CacheBypass || s.BundleID != "b-1" ||
		len(s.Aliases) != 2 || s.Aliases["claude-opus-5-5"] != "claude-haiku-4-5" || s.Aliases["fast"] != "auto" {
		t.Errorf("stored settings %+v", s)
	}
	if !slices.Equal(store.changed, []string{org}) {
		t.Errorf("RoutingChanged calls %v", store.changed)
	}
	if p.tid("routing-alpha").AttrOr("value", "") != "0.3" || p.tid("routing-bundle-b-1").AttrOr("selected", "x") == "x" ||
		p.tid("routing-cache-bypass").AttrOr("checked", "x") == "x" || p.text("routing-allow") != "gpt-5-mini\nclaude-haiku-4-5" ||
		p.text("routing-aliases") != "claude-opus-5-5 = claude-haiku-4-5\nfast = auto" {
		t.Errorf("saved form does not show the settings: %s", p.body)
	}
	again := v.get("/routing", nil)
	if again.tid("routing-alpha").AttrOr("value", "") != "0.3" || again.tid("routing-updated").Length() != 1 {
		t.Errorf("reloaded page: %s", again.body)
	}

	// Invalid input re-renders the form with 422 and keeps the settings.
	for _, tc := range []struct {
		name  string
		form  url.Values
		field string
	}{
		{"alpha not a number", url.Values{"alpha": {"high"}, "allow": {"gpt-5-mini"}}, "alpha"},
		{"alpha out of range", url.Values{"alpha": {"1.5"}, "allow": {"gpt-5-mini"}}, "alpha"},
		{"unknown model", url.Values{"alpha": {"0.5"}, "allow": {"gpt-5-mini\ngpt-9"}}, "allow"},
		{"allowed and denied", url.Values{"alpha": {"0.5"}, "allow": {"gpt-5-mini"}, "deny": {"gpt-5-mini"}}, "deny"},
		{"foreign bundle", url.Values{"alpha": {"0.5"}, "allow": {"gpt-5-mini"}, "bundle_id": {"b-other"}}, "bundle_id"},
		{"alias line without =", url.Values{"alpha": {"0.5"}, "aliases": {"claude-opus-5-5 claude-haiku-4-5"}}, "aliases"},
		{"alias to an unknown model", url.Values{"alpha": {"0.5"}, "aliases": {"x = gpt-9"}}, "aliases"},
		{"alias given twice", url.Values{"alpha": {"0.5"}, "aliases": {"x = auto\nX = auto"}}, "aliases"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := v.post("/routing", tc.form, htmx)
			if p.status != 422 || p.isFullPage() || p.tid("field-error-"+tc.field).Length() != 1 || p.tid("routing-saved").Length() != 0 {
				t.Fatalf("status %d: %s", p.status, p.body)
			}
			if got := p.tid("routing-alpha").AttrOr("value", ""); got != tc.form.Get("alpha") {
				t.Errorf("the form lost the alpha typed: %q", got)
			}
			if a := store.settings[org].Alpha; a == nil || *a != 0.3 {
				t.Errorf("settings changed to alpha %v", a)
			}
		})
	}
	if p := v.post("/routing", url.Values{"alpha": {"-1"}}, nil); p.status != 422 || !p.isFullPage() || p.tid("field-error-alpha").Length() != 1 {
		t.Errorf("non-htmx invalid form: %d", p.status)
	}

	// CSRF: without the token, or with a wrong one, nothing is saved.
	for _, h := range []hdr{nil, {"HX-Request": "true", web.CSRFHeader: "nope"}} {
		p := v.post("/routing", url.Values{"alpha": {"0.9"}, "csrf_token": {""}}, h)
		if p.status != 403 || p.tid("error-panel").Length() != 1 {
			t.Errorf("CSRF refusal: %d %s", p.status, p.body)
		}
	}
	if a := store.settings[org].Alpha; a == nil || *a != 0.3 {
		t.Errorf("a refused post changed alpha to %v", a)
	}

	// Another organisation sees its own (empty) settings, not this bundle.
	other := f.visitor()
	other.signup("other@example.com")
	op := other.get("/routing", nil)
	if op.tid("routing-alpha").AttrOr("value", "x") != "" || op.tid("routing-bundle-b-1").Length() != 0 || strings.Contains(op.body, "gpt-5-mini") {
		t.Errorf("other organisation's routing page: %s", op.body)
	}
}
