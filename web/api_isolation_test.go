package web_test

import (
	"strings"
	"testing"
)

// TestOrgIsolation: a user of organisation A, admin of their own org, can
// never read, change, test, revoke or use anything of organisation B through
// any endpoint, and B's objects are unchanged afterwards.
func TestOrgIsolation(t *testing.T) {
	f := newFixture(t)
	a := f.browser()
	a.signup("alice@a.example", "Org A")
	b := f.browser()
	orgB := str(b.signup("bob@b.example", "Org B"), "org", "id")
	bUser := str(b.mustStatus(b.do("GET", "/api/v1/me", nil), 200).json(t), "user", "id")
	bKey := b.mustStatus(b.do("POST", "/api/v1/keys", map[string]any{"name": "b-key"}), 201).json(t)
	bKeyID := bKey["key"].(map[string]any)["id"].(string)
	bCred := b.mustStatus(b.do("POST", "/api/v1/credentials", map[string]any{"provider": "openai", "secret": goodSecret}), 201).json(t)["id"].(string)
	f.tester.calls = nil

	for _, tc := range []struct {
		method, path string
		body         any
	}{
		{"GET", "/api/v1/keys/" + bKeyID, nil},
		{"PATCH", "/api/v1/keys/" + bKeyID, map[string]any{"name": "pwned"}},
		{"DELETE", "/api/v1/keys/" + bKeyID, nil},
		{"POST", "/api/v1/keys/" + bKeyID + "/reinstate", nil},
		{"PATCH", "/api/v1/orgs/" + orgB, map[string]any{"removed_member_keys": "suspend"}},
		{"POST", "/api/v1/credentials/" + bCred + "/test", nil},
		{"POST", "/api/v1/credentials/" + bCred + "/rotate", map[string]any{"secret": rotated}},
		{"DELETE", "/api/v1/credentials/" + bCred, nil},
		{"GET", "/api/v1/orgs/" + orgB + "/members", nil},
		{"POST", "/api/v1/orgs/" + orgB + "/members", map[string]any{"email": "alice@a.example", "role": "owner"}},
		{"PATCH", "/api/v1/orgs/" + orgB + "/members/" + bUser, map[string]any{"role": "viewer"}},
		{"DELETE", "/api/v1/orgs/" + orgB + "/members/" + bUser, nil},
		{"PUT", "/api/v1/orgs/current", map[string]any{"org_id": orgB}},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			r := a.do(tc.method, tc.path, tc.body)
			if r.status != 404 {
				t.Fatalf("status %d, want 404: %s", r.status, r.body)
			}
			if code, _ := r.errCode(t); code != "tenancy.not_found" {
				t.Fatalf("code %s", code)
			}
		})
	}
	for _, path := range []string{"/api/v1/keys", "/api/v1/credentials"} {
		r := a.mustStatus(a.do("GET", path, nil), 200)
		for _, id := range []string{bKeyID, bCred} {
			if strings.Contains(string(r.body), id) {
				t.Fatalf("%s lists org B's object: %s", path, r.body)
			}
		}
	}
	if strings.Contains(string(a.mustStatus(a.do("GET", "/api/v1/orgs", nil), 200).body), orgB) {
		t.Fatal("org B listed for alice")
	}
	if len(f.tester.calls) != 0 {
		t.Fatal("org B's credential was tested on alice's request")
	}
	// B's objects are untouched.
	k := b.mustStatus(b.do("GET", "/api/v1/keys/"+bKeyID, nil), 200).json(t)
	if k["name"] != "b-key" || k["status"] != "active" {
		t.Fatalf("org B's key changed: %v", k)
	}
	cs := b.mustStatus(b.do("GET", "/api/v1/credentials", nil), 200).json(t)["credentials"].([]any)
	if len(cs) != 1 || cs[0].(map[string]any)["last_four"] != "cdef" || cs[0].(map[string]any)["rotated_at"] != nil {
		t.Fatalf("org B's credential changed: %v", cs)
	}
	ms := b.mustStatus(b.do("GET", "/api/v1/orgs/"+orgB+"/members", nil), 200).json(t)
	if len(ms["members"].([]any)) != 1 || ms["invitations"] != nil {
		t.Fatalf("org B's members changed: %v", ms)
	}
	f.assertNeverSeen(goodSecret)
}
