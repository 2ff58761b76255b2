package e2e

import (
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
)

// TestOrgRoutingSettingsAndBundle: an organisation's deny list blocks an
// explicit model (403 in the caller's format); an uploaded evaluation set
// trains the organisation's own bundle, which /v1/route then uses once it
// is activated.
func TestOrgRoutingSettingsAndBundle(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	in := startHeddle(t, nil)
	a := signUp(t, in.URL, "router@example.com", "openai", fakeSecret, up.URL+"/v1")
	a.api.do("PUT", "/api/v1/routing", map[string]any{"alpha": 0.3, "deny": []string{"gpt-5"}}, 200, nil)
	resp, body := chat(t, in.URL, a.Key, `{"model":"gpt-5","messages":[{"role":"user","content":"hi"}]}`)
	if resp.StatusCode != 403 || resp.Header.Get("x-heddle-error") != "routing.model_not_allowed" || !strings.Contains(body, `"error"`) {
		t.Errorf("denied model: %d %q %s", resp.StatusCode, resp.Header.Get("x-heddle-error"), body)
	}

	// 200 samples: code questions only the strong model answers, chat both do.
	bundleID := trainBundle(t, a, evalData(200))
	// Activate the bundle (and drop the deny list); at alpha 0.8 quality wins
	// where the cheap model fails and cost wins where both succeed.
	a.api.do("PUT", "/api/v1/routing", map[string]any{"alpha": 0.8, "bundle_id": bundleID}, 200, nil)
	route := func(prompt string) (string, string) { return routeVia(t, in.URL, a.Key, prompt) }
	// Settings apply on every replica within the cache TTL; this replica was told.
	model, bundle := route("implement a concurrent lock-free queue in Go with tests")
	if bundle != bundleID || model != "gpt-5" {
		t.Errorf("code prompt: model %s bundle %s, want gpt-5 via %s", model, bundle, bundleID)
	}
	// The organisation's dial moves the same prompt to the cheap model.
	a.api.do("PUT", "/api/v1/routing", map[string]any{"alpha": 0.1, "bundle_id": bundleID}, 200, nil)
	model, _ = route("hello there, how is your day")
	if model != "gpt-5-nano" {
		t.Errorf("chat prompt at alpha 0.1 routed to %s, want gpt-5-nano", model)
	}
}
