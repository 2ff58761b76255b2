package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
)

// TestRateLimitsAndBudgets: a key over its RPM gets 429 tenancy.rate_limited
// with Retry-After; a key whose daily budget is spent gets 402
// billing.budget_exceeded, in OpenAI's error shape; neither reaches the
// upstream.
func TestRateLimitsAndBudgets(t *testing.T) {
	for name, env := range backends() {
		t.Run(name, func(t *testing.T) { testRateLimitsAndBudgets(t, env) })
	}
}

func testRateLimitsAndBudgets(t *testing.T, env map[string]string) {
	up := dispatchtest.NewUpstream(t)
	in := startHeddle(t, env)
	a := signUp(t, in.URL, "limits@example.com", "openai", fakeSecret, up.URL+"/v1")
	var rl, bud struct {
		Secret string `json:"secret"`
	}
	a.api.do("POST", "/api/v1/keys", map[string]any{"name": "slow", "scopes": []string{"inference"}, "rpm": 2}, 201, &rl)
	// 10 micro-dollars a day: one gpt-5-mini answer (13 micros) spends it.
	a.api.do("POST", "/api/v1/keys", map[string]any{"name": "thrifty", "scopes": []string{"inference"}, "daily_budget_micros": 10}, 201, &bud)
	body := func(i int) string {
		return `{"model":"gpt-5-mini","messages":[{"role":"user","content":"question ` + itoa(i) + `"}]}`
	}

	for i := 0; i < 2; i++ {
		if resp, b := chat(t, in.URL, rl.Secret, body(i)); resp.StatusCode != 200 {
			t.Fatalf("request %d within the RPM: %d %s", i, resp.StatusCode, b)
		}
	}
	before := len(up.Requests())
	resp, b := chat(t, in.URL, rl.Secret, body(2))
	if resp.StatusCode != 429 || resp.Header.Get("x-heddle-error") != "tenancy.rate_limited" || resp.Header.Get("Retry-After") == "" || !strings.Contains(b, `"error"`) {
		t.Errorf("over the RPM: %d %q retry-after %q %s", resp.StatusCode, resp.Header.Get("x-heddle-error"), resp.Header.Get("Retry-After"), b)
	}
	if len(up.Requests()) != before {
		t.Error("a rate-limited request reached the upstream")
	}

	if resp, b := chat(t, in.URL, bud.Secret, body(10)); resp.StatusCode != 200 {
		t.Fatalf("first request on budget: %d %s", resp.StatusCode, b)
	}
	exceeded := false
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && !exceeded; time.Sleep(100 * time.Millisecond) {
		before = len(up.Requests())
		resp, b = chat(t, in.URL, bud.Secret, body(11))
		exceeded = resp.StatusCode == 402
	}
	if !exceeded || resp.Header.Get("x-heddle-error") != "billing.budget_exceeded" || !strings.Contains(b, "budget") {
		t.Fatalf("spent budget: %d %q %s", resp.StatusCode, resp.Header.Get("x-heddle-error"), b)
	}
	if len(up.Requests()) != before {
		t.Error("a request over budget reached the upstream")
	}

	// The same key's budget made soft: requests pass again and the spent
	// budget is logged as an alert (the key's cached limits refresh within
	// seconds).
	var keys struct {
		Keys []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"keys"`
	}
	a.api.do("GET", "/api/v1/keys", nil, 200, &keys)
	thriftyID := ""
	for _, k := range keys.Keys {
		if k.Name == "thrifty" {
			thriftyID = k.ID
		}
	}
	a.api.do("PATCH", "/api/v1/keys/"+thriftyID, map[string]any{"budget_mode": "soft"}, 200, nil)
	passed := false
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && !passed; time.Sleep(200 * time.Millisecond) {
		resp, _ = chat(t, in.URL, bud.Secret, body(12))
		passed = resp.StatusCode == 200
	}
	if !passed {
		t.Fatalf("a spent soft key budget still refuses: %d", resp.StatusCode)
	}
	if !in.logContains(`"scope":"key:` + thriftyID + `"`) {
		t.Errorf("no soft budget alert for the key in the log")
	}
}
