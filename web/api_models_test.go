package web_test

import (
	"testing"
)

func acmeModel() map[string]any {
	return map[string]any{"id": "acme-llama", "provider": "acme", "upstream": "meta/llama-3-8b", "context_window": 8192,
		"max_output": 1024, "capabilities": map[string]bool{"tools": true},
		"price": map[string]float64{"input": 0.2, "output": 0.6, "cache_read": 0, "cache_write": 0}}
}

func TestTenantProvidersAndModelsAPI(t *testing.T) {
	store := newRoutingStore()
	f := newFixture(t, withRouting(store, 0))
	owner := f.browser()
	org := str(owner.signup("owner@a.example", "Org A"), "org", "id")
	secret := "sk-acme-0123456789"

	r := owner.mustStatus(owner.do("POST", "/api/v1/providers", map[string]string{
		"name": "acme", "base_url": "https://llm.acme.example/v1/", "secret": secret}), 201)
	p := r.json(t)
	if str(p, "name") != "acme" || str(p, "base_url") != "https://llm.acme.example/v1" || str(p, "format") != "openai_chat" || str(p, "credential_id") == "" {
		t.Fatalf("provider = %s", r.body)
	}
	// Its secret is an ordinary credential of the provider's name.
	creds := owner.mustStatus(owner.do("GET", "/api/v1/credentials", nil), 200).json(t)["credentials"].([]any)
	if len(creds) != 1 || str(creds[0].(map[string]any), "provider") != "acme" || str(creds[0].(map[string]any), "id") != str(p, "credential_id") {
		t.Fatalf("credentials = %v", creds)
	}

	bad := []struct {
		name, path string
		body       any
		status     int
		code       string
		field      string
	}{
		{"private base URL", "/api/v1/providers", map[string]string{"name": "lan", "base_url": "https://127.0.0.1:8000/v1", "secret": secret}, 400, "tenancy.invalid_input", "base_url"},
		{"plain http", "/api/v1/providers", map[string]string{"name": "lan", "base_url": "http://llm.example/v1", "secret": secret}, 400, "tenancy.invalid_input", "base_url"},
		{"catalog provider name", "/api/v1/providers", map[string]string{"name": "openai", "base_url": "https://x.example/v1", "secret": secret}, 400, "tenancy.invalid_input", "name"},
		{"duplicate provider", "/api/v1/providers", map[string]string{"name": "acme", "base_url": "https://x.example/v1", "secret": secret}, 409, "tenancy.conflict", ""},
		{"model on an unknown provider", "/api/v1/models", map[string]any{"id": "x-model", "provider": "nobody", "upstream": "x", "context_window": 10, "max_output": 1}, 400, "tenancy.invalid_input", "provider"},
		{"model named like a catalog model", "/api/v1/models", map[string]any{"id": "gpt-5-mini", "provider": "acme", "upstream": "x", "context_window": 10, "max_output": 1}, 400, "tenancy.invalid_input", "id"},
		{"negative price", "/api/v1/models", map[string]any{"id": "x-model", "provider": "acme", "upstream": "x", "context_window": 10, "max_output": 1, "price": map[string]float64{"output": -1}}, 400, "tenancy.invalid_input", "price.output"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			r := owner.do("POST", tc.path, tc.body)
			code, field := r.errCode(t)
			if r.status != tc.status || code != tc.code || field != tc.field {
				t.Fatalf("got %d %s %q, want %d %s %q: %s", r.status, code, field, tc.status, tc.code, tc.field, r.body)
			}
		})
	}

	m := owner.mustStatus(owner.do("POST", "/api/v1/models", acmeModel()), 201).json(t)
	if str(m, "id") != "acme-llama" || str(m, "upstream") != "meta/llama-3-8b" || str(m, "format") != "openai_chat" ||
		m["context_window"] != float64(8192) || m["price"].(map[string]any)["output"] != 0.6 ||
		m["capabilities"].(map[string]any)["tools"] != true {
		t.Fatalf("model = %v", m)
	}
	if r := owner.do("POST", "/api/v1/models", acmeModel()); r.status != 409 {
		t.Fatalf("duplicate model: %d %s", r.status, r.body)
	}
	m = owner.mustStatus(owner.do("PATCH", "/api/v1/models/acme-llama", map[string]any{
		"price": map[string]float64{"input": 1, "output": 2}}), 200).json(t)
	if m["price"].(map[string]any)["output"] != float64(2) || str(m, "upstream") != "meta/llama-3-8b" {
		t.Fatalf("patched = %v", m)
	}
	list := owner.mustStatus(owner.do("GET", "/api/v1/models", nil), 200).json(t)["models"].([]any)
	if len(list) != 1 || str(list[0].(map[string]any), "id") != "acme-llama" {
		t.Fatalf("models = %v", list)
	}

	// Aliases may point at the organisation's own models.
	owner.mustStatus(owner.do("PUT", "/api/v1/routing", map[string]any{"aliases": map[string]string{"llama": "acme-llama"}}), 200)

	// Members read but do not change; other organisations see nothing.
	member := f.invite(owner, org, "member@a.example", "member")
	member.mustStatus(member.do("GET", "/api/v1/models", nil), 200)
	if r := member.do("DELETE", "/api/v1/models/acme-llama", nil); r.status != 403 {
		t.Fatalf("member deletes: %d %s", r.status, r.body)
	}
	other := f.browser()
	other.signup("b@b.example", "Org B")
	if got := other.mustStatus(other.do("GET", "/api/v1/models", nil), 200).json(t)["models"].([]any); len(got) != 0 {
		t.Fatalf("org B sees %v", got)
	}
	if r := other.do("DELETE", "/api/v1/models/acme-llama", nil); r.status != 404 {
		t.Fatalf("org B deletes A's model: %d %s", r.status, r.body)
	}
	if r := other.do("PUT", "/api/v1/routing", map[string]any{"aliases": map[string]string{"llama": "acme-llama"}}); r.status != 400 {
		t.Fatalf("org B aliases A's model: %d %s", r.status, r.body)
	}

	r = owner.do("DELETE", "/api/v1/providers/acme", nil)
	if code, _ := r.errCode(t); r.status != 409 || code != "tenantmodel.provider_in_use" {
		t.Fatalf("delete provider in use: %d %s", r.status, r.body)
	}
	owner.mustStatus(owner.do("DELETE", "/api/v1/models/acme-llama", nil), 204)
	// Ids with '/' are addressed by the rest of the path, plain or escaped.
	for _, path := range []string{"/api/v1/models/acme/llama-70b", "/api/v1/models/acme%2Fllama-70b"} {
		slashed := acmeModel()
		slashed["id"] = "acme/llama-70b"
		owner.mustStatus(owner.do("POST", "/api/v1/models", slashed), 201)
		got := owner.mustStatus(owner.do("PATCH", path, map[string]any{"upstream": "meta/llama-3-70b"}), 200).json(t)
		if str(got, "id") != "acme/llama-70b" || str(got, "upstream") != "meta/llama-3-70b" {
			t.Fatalf("PATCH %s = %v", path, got)
		}
		owner.mustStatus(owner.do("DELETE", path, nil), 204)
	}
	owner.mustStatus(owner.do("DELETE", "/api/v1/providers/acme", nil), 204)
	if got := owner.mustStatus(owner.do("GET", "/api/v1/credentials", nil), 200).json(t)["credentials"].([]any); len(got) != 0 {
		t.Fatalf("the provider's credential outlived it: %v", got)
	}
	f.assertNeverSeen(secret)
}
