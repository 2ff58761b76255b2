package web_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// adminEndpoints are the admin API's state-changing endpoints that take a
// JSON body; {key} and {org} are filled in per run.
var adminEndpoints = []struct{ method, path string }{
	{"PUT", "/api/v1/routing"},
	{"PUT", "/api/v1/budgets"},
	{"POST", "/api/v1/keys"},
	{"PATCH", "/api/v1/keys/{key}"},
	{"POST", "/api/v1/credentials"},
	{"POST", "/api/v1/providers"},
	{"POST", "/api/v1/models"},
	{"PATCH", "/api/v1/models/acme/llama"},
	{"POST", "/api/v1/orgs"},
	{"POST", "/api/v1/orgs/{org}/members"},
	{"PUT", "/api/v1/orgs/current"},
	{"POST", "/api/v1/login"},
}

// FuzzAdminAPI sends arbitrary bodies to the admin API as an organisation's
// owner: whatever arrives, the answer is a JSON error in the API's shape or
// a success, never a 500 (an unclassified error) and never a panic.
func FuzzAdminAPI(f *testing.F) {
	for i := range adminEndpoints {
		for _, seed := range []string{
			`{}`, `{"alpha": 0.5, "aliases": {"x": "auto"}}`, `{"daily_limit_micros": 5, "daily_mode": "soft"}`,
			`{"name": "ci", "scopes": ["inference"], "rpm": -1}`, `{"provider": "openai", "secret": "sk-123456789", "base_url": "http://[::1]:1/v1"}`,
			`{"id": "acme/llama", "provider": "acme", "upstream": "u", "context_window": 1e400, "price": {"input": -0}}`,
			`{"email": "a@b.c", "role": "owner"}`, `{"org_id": ""}`, `null`, `[]`, `"x"`, `{"alpha": "NaN"}`, `{`,
			`{"aliases": {"": ""}, "allow": [null]}`, `{"daily_limit_micros": 9223372036854775808}`,
		} {
			f.Add(uint8(i), []byte(seed))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		fx := newFixture(t, withRouting(newRoutingStore(), 0), withBudgets(newBudgets()))
		owner := fx.browser()
		org := str(owner.signup("owner@fuzz.example", "Fuzz Org"), "org", "id")
		key := str(owner.mustStatus(owner.do("POST", "/api/v1/keys", map[string]any{"name": "k", "scopes": []string{"inference"}}), 201).json(t), "key", "id")
		owner.mustStatus(owner.do("POST", "/api/v1/providers", map[string]string{
			"name": "acme", "base_url": "https://llm.acme.example/v1", "secret": "sk-acme-0123456789"}), 201)

		ep := adminEndpoints[int(which)%len(adminEndpoints)]
		path := strings.NewReplacer("{key}", key, "{org}", org).Replace(ep.path)
		r := owner.do(ep.method, path, body)
		if r.status >= 500 && r.status != 501 {
			t.Fatalf("%s %s with %q: %d %s", ep.method, path, body, r.status, r.body)
		}
		if r.status >= 400 {
			var e struct {
				Error struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(r.body, &e); err != nil || e.Error.Code == "" || e.Error.Message == "" {
				t.Fatalf("%s %s with %q: %d without the API's error shape: %s", ep.method, path, body, r.status, r.body)
			}
		}
	})
}
