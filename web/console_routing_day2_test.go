package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/web"
)

// TestConsoleRoutingEffectiveDialAndTry: the routing page shows the
// effective dial (the deployment default until the organisation sets its
// own); "try a prompt" shows the router's answer for the caller's
// organisation, refusals with their reason, an empty prompt with 422; the
// Models page marks aliases as aliases.
func TestConsoleRoutingEffectiveDialAndTry(t *testing.T) {
	rs := newRoutingStore()
	type call struct{ org, model, prompt string }
	var calls []call
	f := newConsoleFixture(t, withRouting(rs, 0), func(d *deps) {
		d.RoutePreview = func(_ context.Context, org, model, prompt string) (*gateway.RouteAnswer, error) {
			calls = append(calls, call{org, model, prompt})
			if model == "gpt-5" {
				return nil, gateway.ErrModelNotAllowed
			}
			return &gateway.RouteAnswer{RequestedModel: model, Model: "gpt-5-mini", Route: "routed", Policy: "auto",
				Baseline: "claude-sonnet-4-5",
				Targets:  []gateway.RouteTarget{{Model: "gpt-5-mini", Provider: "openai", Upstream: "gpt-5-mini"}},
				Decision: &routing.Decision{Model: "gpt-5-mini", Alpha: 0.6, BundleID: "default", BundleRevision: "r1",
					Scores: []routing.ModelScore{{Model: "claude-haiku-4-5", Score: 0.4}, {Model: "gpt-5-mini", Score: 0.7}}}}, nil
		}
	})
	v := f.visitor()
	org := v.signup("dial@example.com")
	p := v.get("/routing", nil)
	if got := p.text("routing-effective-alpha"); got != "0.6 (the deployment default)" {
		t.Errorf("effective dial %q", got)
	}
	if ph := p.tid("routing-alpha").AttrOr("placeholder", ""); ph != "0.6" {
		t.Errorf("dial placeholder %q", ph)
	}
	alpha := 0.25
	var callable []string
	v.get("/models", nil).doc.Find(`[data-testid^="models-callable-"]`).Each(func(_ int, s *goquery.Selection) {
		if id, ok := strings.CutPrefix(s.AttrOr("data-testid", ""), "models-callable-"); ok && s.Is("tr") {
			callable = append(callable, id)
		}
	})
	if len(callable) < 2 {
		t.Fatalf("callable models %v", callable)
	}
	rs.settings[org] = routing.OrgSettings{Alpha: &alpha, Aliases: map[string]string{callable[0]: "auto"}}
	if got := v.get("/routing", nil).text("routing-effective-alpha"); got != "0.25 (this organisation's)" {
		t.Errorf("effective dial after setting it %q", got)
	}

	try := func(model, prompt string) *page {
		return v.post("/routing/try", url.Values{"model": {model}, "prompt": {prompt}, "csrf_token": {v.cookies[web.CSRFCookie]}}, htmx)
	}
	a := try("", "write a haiku")
	if a.status != 200 || a.text("routing-try-chosen") != "gpt-5-mini" || a.text("routing-try-route") != "routed (auto)" {
		t.Fatalf("try: %d %s", a.status, a.body)
	}
	if first := strings.TrimSpace(a.tid("routing-try-scores").Find("tbody tr td").First().Text()); first != "gpt-5-mini" {
		t.Errorf("best candidate listed first: %q", first)
	}
	if len(calls) != 1 || calls[0] != (call{org, "auto", "write a haiku"}) {
		t.Errorf("preview calls %+v", calls)
	}
	if r := try("gpt-5", "hi"); r.status != 403 || r.tid("routing-try-error").Length() != 1 {
		t.Errorf("denied model: %d %s", r.status, r.body)
	}
	if r := try("", ""); r.status != 422 || len(calls) != 2 {
		t.Errorf("empty prompt: %d, calls %d", r.status, len(calls))
	}

	m := v.get("/models", nil)
	if got := strings.TrimSpace(m.tid("models-callable-" + callable[0]).Find(`[data-testid="models-callable-alias"]`).Text()); got != "alias of auto" {
		t.Errorf("alias mark %q", got)
	}
	if n := m.tid("models-callable-" + callable[1]).Find(`[data-testid="models-callable-alias"]`).Length(); n != 0 {
		t.Errorf("a model is marked as an alias")
	}
}
