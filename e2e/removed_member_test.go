package e2e

import (
	"testing"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
)

// TestRemovedMemberKeys: an organisation that chooses "suspend" keeps a
// removed member's keys, refusing them with 401 tenancy.key_suspended
// (in the caller's wire format) until an admin reinstates one; one that
// keeps the default revokes them for good.
func TestRemovedMemberKeys(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	in := startHeddle(t, nil)
	for _, tc := range []struct {
		disposal, status, code string
	}{{"suspend", "suspended", "tenancy.key_suspended"}, {"revoke", "revoked", "tenancy.unauthorized"}} {
		t.Run(tc.disposal, func(t *testing.T) {
			owner := signUp(t, in.URL, "owner-"+tc.disposal+"@example.com", "openai", fakeSecret, up.URL+"/v1")
			var org struct {
				RemovedMemberKeys string `json:"removed_member_keys"`
			}
			owner.api.do("GET", "/api/v1/orgs/current", nil, 200, &org)
			if org.RemovedMemberKeys != "revoke" {
				t.Fatalf("default removed_member_keys %q, want revoke", org.RemovedMemberKeys)
			}
			owner.api.do("PATCH", "/api/v1/orgs/"+owner.OrgID, map[string]string{"removed_member_keys": tc.disposal}, 200, &org)
			if org.RemovedMemberKeys != tc.disposal {
				t.Fatalf("removed_member_keys %q after PATCH, want %s", org.RemovedMemberKeys, tc.disposal)
			}
			owner.api.do("PATCH", "/api/v1/orgs/"+owner.OrgID, map[string]string{"removed_member_keys": "archive"}, 400, nil)

			// A member joins, creates a key, and is removed.
			var inv struct {
				AcceptPath string `json:"accept_path"`
			}
			email := "member-" + tc.disposal + "@example.com"
			owner.api.do("POST", "/api/v1/orgs/"+owner.OrgID+"/members", map[string]string{"email": email, "role": "member"}, 201, &inv)
			member := &apiClient{t: t, base: in.URL}
			var accepted struct {
				AccessToken string `json:"access_token"`
				User        struct {
					ID string `json:"id"`
				} `json:"user"`
			}
			member.do("POST", inv.AcceptPath, map[string]string{"password": "correct horse battery staple"}, 200, &accepted)
			member.token = accepted.AccessToken
			var key struct {
				Key struct {
					ID string `json:"id"`
				} `json:"key"`
				Secret string `json:"secret"`
			}
			member.do("POST", "/api/v1/keys", map[string]any{"name": "member's", "scopes": []string{"inference"}}, 201, &key)
			if resp, b := chat(t, in.URL, key.Secret, chatBody(0)); resp.StatusCode != 200 {
				t.Fatalf("member's key before removal: %d %s", resp.StatusCode, b)
			}
			owner.api.do("DELETE", "/api/v1/orgs/"+owner.OrgID+"/members/"+accepted.User.ID, nil, 204, nil)

			resp, b := chat(t, in.URL, key.Secret, chatBody(1))
			if resp.StatusCode != 401 || resp.Header.Get("x-heddle-error") != tc.code {
				t.Fatalf("member's key after removal: %d %q %s; want 401 %s", resp.StatusCode, resp.Header.Get("x-heddle-error"), b, tc.code)
			}
			var k struct {
				Status      string  `json:"status"`
				SuspendedAt *string `json:"suspended_at"`
			}
			owner.api.do("GET", "/api/v1/keys/"+key.Key.ID, nil, 200, &k)
			if k.Status != tc.status {
				t.Fatalf("key status %q, want %s", k.Status, tc.status)
			}
			if tc.disposal == "revoke" {
				owner.api.do("POST", "/api/v1/keys/"+key.Key.ID+"/reinstate", nil, 409, nil)
				return
			}
			// Only admins and owners reinstate; the key serves again.
			owner.api.do("POST", "/api/v1/keys/"+key.Key.ID+"/reinstate", nil, 200, &k)
			if k.Status != "active" || k.SuspendedAt != nil {
				t.Fatalf("reinstated key %+v", k)
			}
			if resp, b := chat(t, in.URL, key.Secret, chatBody(2)); resp.StatusCode != 200 {
				t.Fatalf("reinstated key: %d %s", resp.StatusCode, b)
			}
		})
	}
}
