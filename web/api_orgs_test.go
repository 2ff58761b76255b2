package web_test

import (
	"strings"
	"testing"
)

func TestMembersAndInvitations(t *testing.T) {
	f := newFixture(t)
	owner := f.browser()
	orgID := str(owner.signup("owner@example.com", "Acme"), "org", "id")
	viewer := f.invite(owner, orgID, "viewer@example.com", "viewer")

	viewer.mustStatus(viewer.do("POST", "/api/v1/orgs/"+orgID+"/members", map[string]string{"email": "x@example.com", "role": "member"}), 403)
	r := viewer.mustStatus(viewer.do("GET", "/api/v1/orgs/"+orgID+"/members", nil), 200)
	if r.json(t)["invitations"] != nil {
		t.Fatalf("viewer sees invitations: %s", r.body)
	}

	r = owner.mustStatus(owner.do("POST", "/api/v1/orgs/"+orgID+"/members", map[string]string{"email": "New@Example.com", "role": "admin"}), 201)
	inv := r.json(t)
	token, path := str(inv, "token"), str(inv, "accept_path")
	if !strings.HasPrefix(token, "inv_") || path != "/api/v1/invitations/"+token+"/accept" || str(inv, "invitation", "email") != "new@example.com" {
		t.Fatalf("invitation %s", r.body)
	}
	r = owner.mustStatus(owner.do("GET", "/api/v1/orgs/"+orgID+"/members", nil), 200)
	if invs := r.json(t)["invitations"].([]any); len(invs) != 1 || strings.Contains(string(r.body), token) {
		t.Fatalf("pending invitations %s", r.body)
	}

	anon := f.browser()
	anon.mustStatus(anon.do("POST", "/api/v1/invitations/inv_nope/accept", map[string]string{"password": "invited password"}), 410)
	r = anon.mustStatus(anon.do("POST", path, map[string]string{"password": "invited password"}), 200)
	acc := r.json(t)
	if str(acc, "org", "id") != orgID || str(acc, "org", "role") != "admin" || str(acc, "access_token") == "" || r.cookie("heddle_session") == nil {
		t.Fatalf("accept %s", r.body)
	}
	me := anon.mustStatus(anon.do("GET", "/api/v1/me", nil), 200).json(t)
	if str(me, "user", "email") != "new@example.com" || str(me, "org", "role") != "admin" {
		t.Fatalf("new member /me %v", me)
	}
	anon.mustStatus(anon.do("POST", path, map[string]string{"password": "invited password"}), 410)

	// A logged-in user accepts with their session (Bearer here).
	other := f.browser()
	otherBody := other.signup("other@example.com", "Other")
	r = owner.mustStatus(owner.do("POST", "/api/v1/orgs/"+orgID+"/members", map[string]string{"email": "other@example.com", "role": "member"}), 201)
	bearer := &client{f: f, bearer: str(otherBody, "access_token")}
	r = bearer.mustStatus(bearer.do("POST", str(r.json(t), "accept_path"), nil), 200)
	if r.json(t)["access_token"] != nil {
		t.Fatalf("accepting while logged in started another session: %s", r.body)
	}
	orgs := bearer.mustStatus(bearer.do("GET", "/api/v1/orgs", nil), 200).json(t)["orgs"].([]any)
	if len(orgs) != 2 {
		t.Fatalf("other's orgs %v", orgs)
	}

	viewerID := str(viewer.mustStatus(viewer.do("GET", "/api/v1/me", nil), 200).json(t), "user", "id")
	ownerID := str(owner.mustStatus(owner.do("GET", "/api/v1/me", nil), 200).json(t), "user", "id")
	r = owner.mustStatus(owner.do("PATCH", "/api/v1/orgs/"+orgID+"/members/"+viewerID, map[string]string{"role": "member"}), 200)
	if r.json(t)["role"] != "member" {
		t.Fatalf("change role %s", r.body)
	}
	viewer.mustStatus(viewer.do("POST", "/api/v1/keys", map[string]string{"name": "now allowed"}), 201)
	r = owner.mustStatus(owner.do("PATCH", "/api/v1/orgs/"+orgID+"/members/"+ownerID, map[string]string{"role": "admin"}), 409)
	if code, _ := r.errCode(t); code != "tenancy.last_owner" {
		t.Fatalf("last owner: %s", r.body)
	}
	owner.mustStatus(owner.do("PATCH", "/api/v1/orgs/"+orgID+"/members/"+viewerID, map[string]string{"role": "wizard"}), 400)
	owner.mustStatus(owner.do("DELETE", "/api/v1/orgs/"+orgID+"/members/"+viewerID, nil), 204)
	r = viewer.mustStatus(viewer.do("GET", "/api/v1/keys", nil), 403)
	if code, _ := r.errCode(t); code != "tenancy.no_organisation" {
		t.Fatalf("removed member: %s", r.body)
	}
}

func TestOrgsAndSwitching(t *testing.T) {
	f := newFixture(t)
	c := f.browser()
	first := str(c.signup("owner@example.com", "First"), "org", "id")
	c.mustStatus(c.do("POST", "/api/v1/keys", map[string]string{"name": "in first"}), 201)
	r := c.mustStatus(c.do("POST", "/api/v1/orgs", map[string]string{"name": "Second"}), 201)
	second := str(r.json(t), "id")
	if r.json(t)["role"] != "owner" || r.json(t)["slug"] != "second" {
		t.Fatalf("created org %s", r.body)
	}
	c.mustStatus(c.do("POST", "/api/v1/orgs", map[string]string{"name": ""}), 400)
	orgs := c.mustStatus(c.do("GET", "/api/v1/orgs", nil), 200).json(t)["orgs"].([]any)
	if len(orgs) != 2 || orgs[0].(map[string]any)["current"] != true || orgs[1].(map[string]any)["current"] != nil {
		t.Fatalf("orgs %v", orgs)
	}
	r = c.mustStatus(c.do("PUT", "/api/v1/orgs/current", map[string]string{"org_id": second}), 200)
	if r.json(t)["id"] != second || r.json(t)["current"] != true {
		t.Fatalf("switch %s", r.body)
	}
	if cur := c.mustStatus(c.do("GET", "/api/v1/orgs/current", nil), 200).json(t); cur["id"] != second {
		t.Fatalf("current %v", cur)
	}
	if ks := c.mustStatus(c.do("GET", "/api/v1/keys", nil), 200).json(t)["keys"].([]any); len(ks) != 0 {
		t.Fatalf("keys of the first org listed in the second: %v", ks)
	}
	c.mustStatus(c.do("PUT", "/api/v1/orgs/current", map[string]string{"org_id": first}), 200)
	if ks := c.mustStatus(c.do("GET", "/api/v1/keys", nil), 200).json(t)["keys"].([]any); len(ks) != 1 {
		t.Fatalf("keys after switching back: %v", ks)
	}
}

// TestCancelInvitation: an admin withdraws a pending invitation and its
// token stops working; a viewer cannot, nor can another organisation.
func TestCancelInvitation(t *testing.T) {
	f := newFixture(t)
	owner := f.browser()
	orgID := str(owner.signup("owner@example.com", "Acme"), "org", "id")
	viewer := f.invite(owner, orgID, "viewer@example.com", "viewer")
	r := owner.mustStatus(owner.do("POST", "/api/v1/orgs/"+orgID+"/members", map[string]string{"email": "wrong@example.com", "role": "admin"}), 201)
	inv := r.json(t)
	invID, path := str(inv, "invitation", "id"), str(inv, "accept_path")

	viewer.mustStatus(viewer.do("DELETE", "/api/v1/orgs/"+orgID+"/invitations/"+invID, nil), 403)
	mallory := f.browser()
	malloryOrg := str(mallory.signup("mallory@example.com", "Evil"), "org", "id")
	mallory.mustStatus(mallory.do("DELETE", "/api/v1/orgs/"+orgID+"/invitations/"+invID, nil), 404)
	mallory.mustStatus(mallory.do("DELETE", "/api/v1/orgs/"+malloryOrg+"/invitations/"+invID, nil), 404)

	owner.mustStatus(owner.do("DELETE", "/api/v1/orgs/"+orgID+"/invitations/"+invID, nil), 204)
	owner.mustStatus(owner.do("DELETE", "/api/v1/orgs/"+orgID+"/invitations/"+invID, nil), 404)
	if invs, _ := owner.mustStatus(owner.do("GET", "/api/v1/orgs/"+orgID+"/members", nil), 200).json(t)["invitations"].([]any); len(invs) != 0 {
		t.Fatalf("pending after cancelling: %v", invs)
	}
	anon := f.browser()
	anon.mustStatus(anon.do("POST", path, map[string]string{"password": "invited password"}), 410)
}
