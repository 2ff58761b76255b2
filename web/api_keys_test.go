package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/tenancy"
)

func TestKeysAPI(t *testing.T) {
	f := newFixture(t)
	owner := f.browser()
	owner.signup("owner@example.com", "Acme")
	exp := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
	r := owner.mustStatus(owner.do("POST", "/api/v1/keys", map[string]any{
		"name": "ci", "scopes": []string{"inference", "analytics:read"}, "policy": "route-all", "alpha": 0.4,
		"rpm": 60, "tpm": 100000, "daily_budget_micros": 5000000, "monthly_budget_micros": 90000000,
		"expires_at": exp.Format(time.RFC3339),
	}), 201)
	created := r.json(t)
	secret := str(created, "secret")
	hash, prefix, err := tenancy.ParseKey(secret)
	if err != nil {
		t.Fatalf("created secret %q: %v", secret, err)
	}
	k := created["key"].(map[string]any)
	if k["prefix"] != prefix || k["status"] != "active" || k["policy"] != "route-all" || k["alpha"] != 0.4 ||
		k["rpm"] != 60.0 || k["tpm"] != 100000.0 || k["daily_budget_micros"] != 5e6 || k["monthly_budget_micros"] != 9e7 ||
		k["expires_at"] != exp.Format(time.RFC3339) || k["name"] != "ci" || len(k["scopes"].([]any)) != 2 || k["budget_mode"] != "hard" {
		t.Fatalf("created key %s", r.body)
	}
	id := k["id"].(string)

	// The secret is shown once: never again, and the hash never.
	for _, path := range []string{"/api/v1/keys", "/api/v1/keys/" + id} {
		r := owner.mustStatus(owner.do("GET", path, nil), 200)
		if strings.Contains(string(r.body), secret) || strings.Contains(string(r.body), hash) || strings.Contains(string(r.body), "hash") {
			t.Fatalf("%s leaks the key: %s", path, r.body)
		}
	}
	r = owner.mustStatus(owner.do("GET", "/api/v1/keys", nil), 200)
	if ks := r.json(t)["keys"].([]any); len(ks) != 1 || ks[0].(map[string]any)["id"] != id {
		t.Fatalf("list %s", r.body)
	}

	// PATCH: absent fields stay, null clears.
	r = owner.mustStatus(owner.do("PATCH", "/api/v1/keys/"+id, map[string]any{"alpha": nil, "expires_at": nil, "rpm": 5, "policy": "explicit"}), 200)
	p := r.json(t)
	if p["alpha"] != nil || p["expires_at"] != nil || p["rpm"] != 5.0 || p["tpm"] != 100000.0 || p["policy"] != "explicit" || p["name"] != "ci" {
		t.Fatalf("patched %s", r.body)
	}
	// The budgets become soft (alert only), then hard again; other fields stay.
	if p := owner.mustStatus(owner.do("PATCH", "/api/v1/keys/"+id, map[string]any{"budget_mode": "soft"}), 200).json(t); p["budget_mode"] != "soft" || p["daily_budget_micros"] != 5e6 {
		t.Fatalf("soft budgets: %v", p)
	}
	if p := owner.mustStatus(owner.do("PATCH", "/api/v1/keys/"+id, map[string]any{"budget_mode": "hard"}), 200).json(t); p["budget_mode"] != "hard" {
		t.Fatalf("hard budgets: %v", p)
	}
	for _, tc := range []struct {
		name  string
		body  any
		code  string
		field string
	}{
		{"alpha out of range", map[string]any{"alpha": 2}, "tenancy.invalid_input", "alpha"},
		{"unknown budget mode", map[string]any{"budget_mode": "sometimes"}, "tenancy.invalid_input", "budget_mode"},
		{"alpha wrong type", map[string]any{"alpha": "high"}, "web.bad_request", "alpha"},
		{"bad policy", map[string]any{"policy": "cheap"}, "tenancy.invalid_input", "policy"},
		{"bad scope", map[string]any{"scopes": []string{"root"}}, "tenancy.invalid_input", "scopes"},
		{"negative rpm", map[string]any{"rpm": -1}, "tenancy.invalid_input", "rpm"},
		{"unknown field", map[string]any{"hash": "x"}, "web.bad_request", "hash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := owner.mustStatus(owner.do("PATCH", "/api/v1/keys/"+id, tc.body), 400)
			if code, field := r.errCode(t); code != tc.code || field != tc.field {
				t.Fatalf("got %s/%s: %s", code, field, r.body)
			}
		})
	}
	r = owner.mustStatus(owner.do("POST", "/api/v1/keys", map[string]any{"name": ""}), 400)
	if _, field := r.errCode(t); field != "name" {
		t.Fatalf("empty name: %s", r.body)
	}

	r = owner.mustStatus(owner.do("DELETE", "/api/v1/keys/"+id, nil), 200)
	if r.json(t)["status"] != "revoked" || r.json(t)["revoked_at"] == nil {
		t.Fatalf("revoked %s", r.body)
	}
	r = owner.mustStatus(owner.do("PATCH", "/api/v1/keys/"+id, map[string]any{"name": "x"}), 409)
	owner.mustStatus(owner.do("GET", "/api/v1/keys/nope", nil), 404)
	f.assertNeverSeen(hash)
	if strings.Contains(f.logs.String(), secret) {
		t.Fatal("the key appears in the logs")
	}
	if !strings.Contains(f.logs.String(), prefix) {
		t.Fatal("key creation not logged by prefix")
	}
}

func TestKeyRoles(t *testing.T) {
	f := newFixture(t)
	owner := f.browser()
	org := owner.signup("owner@example.com", "Acme")
	orgID := str(org, "org", "id")
	member := f.invite(owner, orgID, "member@example.com", "member")
	viewer := f.invite(owner, orgID, "viewer@example.com", "viewer")

	ownerKey := owner.mustStatus(owner.do("POST", "/api/v1/keys", map[string]any{"name": "owner's"}), 201).json(t)["key"].(map[string]any)["id"].(string)
	r := viewer.mustStatus(viewer.do("POST", "/api/v1/keys", map[string]any{"name": "v"}), 403)
	if code, _ := r.errCode(t); code != "tenancy.forbidden" {
		t.Fatalf("viewer create: %s", r.body)
	}
	viewer.mustStatus(viewer.do("GET", "/api/v1/keys", nil), 200)
	mine := member.mustStatus(member.do("POST", "/api/v1/keys", map[string]any{"name": "m"}), 201).json(t)["key"].(map[string]any)["id"].(string)
	member.mustStatus(member.do("DELETE", "/api/v1/keys/"+ownerKey, nil), 403)
	member.mustStatus(member.do("PATCH", "/api/v1/keys/"+ownerKey, map[string]any{"name": "x"}), 403)
	member.mustStatus(member.do("PATCH", "/api/v1/keys/"+mine, map[string]any{"name": "mine"}), 200)
	viewer.mustStatus(viewer.do("DELETE", "/api/v1/keys/"+mine, nil), 403)
	member.mustStatus(member.do("DELETE", "/api/v1/keys/"+mine, nil), 200)
	owner.mustStatus(owner.do("DELETE", "/api/v1/keys/"+ownerKey, nil), 200)
}
