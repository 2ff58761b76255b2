package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
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
	var data bytes.Buffer
	for i := 0; i < 200; i++ {
		prompt, strong := fmt.Sprintf("hello there, how is your day %d", i), 1.0
		cheap := 1.0
		if i%2 == 0 {
			prompt, cheap = fmt.Sprintf("implement a concurrent lock-free queue in Go with tests, variant %d", i), 0.0
		}
		line, _ := json.Marshal(map[string]any{"prompt": prompt,
			"scores": map[string]float64{"gpt-5": strong, "gpt-5-nano": cheap},
			"costs":  map[string]float64{"gpt-5": 0.01, "gpt-5-nano": 0.0004}})
		data.Write(append(line, '\n'))
	}
	req, _ := http.NewRequest("POST", in.URL+"/api/v1/routing/bundles", &data)
	req.Header.Set("Authorization", "Bearer "+a.api.token)
	req.Header.Set("Content-Type", "application/x-ndjson")
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(r.Body)
	r.Body.Close()
	var trained struct {
		Bundle struct {
			ID string `json:"id"`
		} `json:"bundle"`
	}
	if r.StatusCode != 201 || json.Unmarshal(raw, &trained) != nil || trained.Bundle.ID == "" {
		t.Fatalf("train: %d %s", r.StatusCode, raw)
	}
	// Activate the bundle (and drop the deny list); at alpha 0.8 quality wins
	// where the cheap model fails and cost wins where both succeed.
	a.api.do("PUT", "/api/v1/routing", map[string]any{"alpha": 0.8, "bundle_id": trained.Bundle.ID}, 200, nil)
	route := func(prompt string) (string, string) {
		req, _ := http.NewRequest("POST", in.URL+"/v1/route", strings.NewReader(`{"model":"auto","messages":[{"role":"user","content":"`+prompt+`"}]}`))
		req.Header.Set("Authorization", "Bearer "+a.Key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var ans struct {
			Model    string `json:"model"`
			Decision struct {
				BundleID string `json:"bundle_id"`
			} `json:"decision"`
		}
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || json.Unmarshal(b, &ans) != nil {
			t.Fatalf("route: %d %s", resp.StatusCode, b)
		}
		return ans.Model, ans.Decision.BundleID
	}
	// Settings apply on every replica within the cache TTL; this replica was told.
	model, bundle := route("implement a concurrent lock-free queue in Go with tests")
	if bundle != trained.Bundle.ID || model != "gpt-5" {
		t.Errorf("code prompt: model %s bundle %s, want gpt-5 via %s", model, bundle, trained.Bundle.ID)
	}
	// The organisation's dial moves the same prompt to the cheap model.
	a.api.do("PUT", "/api/v1/routing", map[string]any{"alpha": 0.1, "bundle_id": trained.Bundle.ID}, 200, nil)
	model, _ = route("hello there, how is your day")
	if model != "gpt-5-nano" {
		t.Errorf("chat prompt at alpha 0.1 routed to %s, want gpt-5-nano", model)
	}
}
