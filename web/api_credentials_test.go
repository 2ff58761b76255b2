package web_test

import (
	"strings"
	"testing"
)

const (
	goodSecret = "sk-ok-PLAINTEXT-0123456789abcdef"
	badSecret  = "sk-bad-PLAINTEXT-fedcba9876543210"
	rotated    = "sk-ok-ROTATED-PLAINTEXT-55556666"
)

func TestCredentialsAPI(t *testing.T) {
	f := newFixture(t)
	owner := f.browser()
	owner.signup("owner@example.com", "Acme")

	// Add with a failing test: refused, not stored, secret scrubbed from the message.
	r := owner.mustStatus(owner.do("POST", "/api/v1/credentials", map[string]any{"provider": "openai", "secret": badSecret, "test": true}), 422)
	code, _ := r.errCode(t)
	if code != "tenancy.credential_test_failed" || !strings.Contains(string(r.body), "[redacted]") {
		t.Fatalf("failed test: %s", r.body)
	}
	if ls := owner.mustStatus(owner.do("GET", "/api/v1/credentials", nil), 200).json(t)["credentials"].([]any); len(ls) != 0 {
		t.Fatal("a credential that failed its test was stored")
	}

	r = owner.mustStatus(owner.do("POST", "/api/v1/credentials", map[string]any{
		"provider": "openai", "label": "prod", "secret": goodSecret, "base_url": "https://api.openai.com/v1", "test": true,
	}), 201)
	c := r.json(t)
	if c["provider"] != "openai" || c["label"] != "prod" || c["last_four"] != "cdef" || c["base_url"] != "https://api.openai.com/v1" || c["rotated_at"] != nil {
		t.Fatalf("added %s", r.body)
	}
	id := c["id"].(string)
	if len(f.tester.calls) != 2 || f.tester.calls[1] != "openai|https://api.openai.com/v1" {
		t.Fatalf("tester calls %v", f.tester.calls)
	}
	r = owner.mustStatus(owner.do("GET", "/api/v1/credentials", nil), 200)
	if ls := r.json(t)["credentials"].([]any); len(ls) != 1 || ls[0].(map[string]any)["last_four"] != "cdef" {
		t.Fatalf("list %s", r.body)
	}
	r = owner.mustStatus(owner.do("POST", "/api/v1/credentials/"+id+"/test", nil), 200)
	if r.json(t)["ok"] != true {
		t.Fatalf("test %s", r.body)
	}
	owner.mustStatus(owner.do("POST", "/api/v1/credentials", map[string]any{"provider": "openai", "secret": goodSecret}), 409)

	// Rotate: with a failing test nothing changes; then for real.
	owner.mustStatus(owner.do("POST", "/api/v1/credentials/"+id+"/rotate", map[string]any{"secret": badSecret, "test": true}), 422)
	r = owner.mustStatus(owner.do("POST", "/api/v1/credentials/"+id+"/rotate", map[string]any{"secret": rotated, "test": true}), 200)
	if r.json(t)["last_four"] != "6666" || r.json(t)["rotated_at"] == nil {
		t.Fatalf("rotated %s", r.body)
	}
	r = owner.mustStatus(owner.do("POST", "/api/v1/credentials/"+id+"/rotate", map[string]any{"secret": "short"}), 400)
	if _, field := r.errCode(t); field != "secret" {
		t.Fatalf("short secret: %s", r.body)
	}
	r = owner.mustStatus(owner.do("POST", "/api/v1/credentials", map[string]any{"provider": "custom", "secret": goodSecret, "base_url": "http://127.0.0.1:9"}), 400)
	if _, field := r.errCode(t); field != "base_url" {
		t.Fatalf("private base URL: %s", r.body)
	}

	owner.mustStatus(owner.do("DELETE", "/api/v1/credentials/"+id, nil), 204)
	owner.mustStatus(owner.do("POST", "/api/v1/credentials/"+id+"/test", nil), 404)
	owner.mustStatus(owner.do("DELETE", "/api/v1/credentials/"+id, nil), 404)

	for _, s := range []string{goodSecret, badSecret, rotated, "PLAINTEXT"} {
		f.assertNeverSeen(s)
	}
	if !strings.Contains(f.logs.String(), "credential added") {
		t.Fatal("credential changes are not logged at all; the leak check would prove little")
	}
}

func TestCredentialRoles(t *testing.T) {
	f := newFixture(t)
	owner := f.browser()
	orgID := str(owner.signup("owner@example.com", "Acme"), "org", "id")
	admin := f.invite(owner, orgID, "admin@example.com", "admin")
	member := f.invite(owner, orgID, "member@example.com", "member")
	viewer := f.invite(owner, orgID, "viewer@example.com", "viewer")
	id := admin.mustStatus(admin.do("POST", "/api/v1/credentials", map[string]any{"provider": "openai", "secret": goodSecret}), 201).json(t)["id"].(string)
	for _, c := range []*client{member, viewer} {
		c.mustStatus(c.do("GET", "/api/v1/credentials", nil), 200)
		c.mustStatus(c.do("POST", "/api/v1/credentials", map[string]any{"provider": "google", "secret": goodSecret}), 403)
		c.mustStatus(c.do("POST", "/api/v1/credentials", map[string]any{"provider": "google", "secret": goodSecret, "test": true}), 403)
		c.mustStatus(c.do("POST", "/api/v1/credentials/"+id+"/test", nil), 403)
		c.mustStatus(c.do("POST", "/api/v1/credentials/"+id+"/rotate", map[string]any{"secret": rotated}), 403)
		c.mustStatus(c.do("DELETE", "/api/v1/credentials/"+id, nil), 403)
	}
	if len(f.tester.calls) != 0 {
		t.Fatalf("a forbidden caller reached the tester: %v", f.tester.calls)
	}
	admin.mustStatus(admin.do("POST", "/api/v1/credentials/"+id+"/rotate", map[string]any{"secret": rotated}), 200)
}
