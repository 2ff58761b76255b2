package e2e

import (
	"net/http"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// TestCachePolicyDeny: an answer in the response cache never outlives the
// organisation's policy. A model's answer is cached (the repeat is served
// with route cache); an admin then denies the model, and the same request
// gets the deny error (403 routing.model_not_allowed), not the cached
// answer; an alias of the model, whose answer was cached too, is answered
// by the model the alias moved to.
func TestCachePolicyDeny(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	in := startHeddle(t, nil)
	a := signUp(t, in.URL, "cache-policy@example.com", "openai", fakeSecret, up.URL+"/v1")
	a.api.do("PUT", "/api/v1/routing", map[string]any{"aliases": map[string]string{"fast": "gpt-5-mini"}}, 200, nil)

	ask := func(model string) (*http.Response, string) {
		return chat(t, in.URL, a.Key, `{"model":"`+model+`","messages":[{"role":"user","content":"What does a loom do?"}]}`)
	}
	// cached asks until the answer comes from the cache (it is written in
	// the background after the first answer).
	cached := func(model string) {
		t.Helper()
		testwait.Until(t, 10*time.Second, "the answer of "+model+" served from the cache", func() bool {
			resp, body := ask(model)
			if resp.StatusCode != 200 {
				t.Fatalf("repeat of %s: %d %s", model, resp.StatusCode, body)
			}
			return resp.Header.Get("x-heddle-route") == "cache"
		})
	}

	cached("gpt-5-mini")
	cached("fast")
	// The console's settings write invalidates this replica's settings cache.
	a.api.do("PUT", "/api/v1/routing", map[string]any{"deny": []string{"gpt-5-mini"},
		"aliases": map[string]string{"fast": "gpt-5-nano"}}, 200, nil)
	resp, body := ask("gpt-5-mini")
	if resp.StatusCode != 403 || resp.Header.Get("x-heddle-error") != "routing.model_not_allowed" {
		t.Errorf("denied model after caching: %d %q route %q %s", resp.StatusCode, resp.Header.Get("x-heddle-error"),
			resp.Header.Get("x-heddle-route"), body)
	}
	resp, body = ask("fast")
	if resp.StatusCode != 200 || resp.Header.Get("x-heddle-route") != "explicit" || resp.Header.Get("x-heddle-model") != "gpt-5-nano" {
		t.Errorf("alias moved to gpt-5-nano: %d route %q model %q %s", resp.StatusCode, resp.Header.Get("x-heddle-route"),
			resp.Header.Get("x-heddle-model"), body)
	}
}
