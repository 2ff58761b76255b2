package web_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/web"
)

// json sends a JSON admin API call with the visitor's session and CSRF
// token and returns the status and decoded body.
func (v *visitor) json(method, path, body string) (int, map[string]any) {
	v.f.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, val := range v.cookies {
		req.Header.Add("Cookie", k+"="+val)
	}
	req.Header.Set(web.CSRFHeader, v.cookies[web.CSRFCookie])
	resp, err := v.f.app.Test(req, -1)
	if err != nil {
		v.f.t.Fatal(err)
	}
	defer resp.Body.Close()
	m := map[string]any{}
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

// TestConsoleSuspendedKey: the keys page shows a removed member's key as
// suspended with a reinstate button for the owner, and reinstating swaps
// the row back to active.
func TestConsoleSuspendedKey(t *testing.T) {
	f := newConsoleFixture(t)
	owner := f.visitor()
	org := owner.signup("owner@example.com")
	if st, m := owner.json("PATCH", "/api/v1/orgs/"+org, `{"removed_member_keys":"suspend"}`); st != 200 || m["removed_member_keys"] != "suspend" {
		t.Fatalf("PATCH org: %d %v", st, m)
	}
	member := consoleInvite(t, f, owner, org, "member@example.com", "member")
	st, created := member.json("POST", "/api/v1/keys", `{"name":"member's"}`)
	if st != 201 {
		t.Fatalf("member's key: %d %v", st, created)
	}
	key := created["key"].(map[string]any)
	id, by := key["id"].(string), key["created_by"].(string)
	if st, m := owner.json("DELETE", "/api/v1/orgs/"+org+"/members/"+by, ""); st != 204 {
		t.Fatalf("remove member: %d %v", st, m)
	}
	page := owner.get("/keys", nil)
	row := page.tid("key-row-" + id)
	if strings.TrimSpace(row.Find(`[data-testid="key-status"]`).Text()) != "suspended" ||
		page.tid("key-reinstate-"+id).Length() != 1 || page.tid("key-revoke-"+id).Length() != 0 {
		t.Fatalf("keys page: %s", page.body)
	}
	p := owner.post("/keys/"+id+"/reinstate", nil, htmx)
	if p.status != 200 || strings.TrimSpace(p.tid("key-status").Text()) != "active" || p.tid("key-revoke-"+id).Length() != 1 ||
		p.tid("key-reinstate-"+id).Length() != 0 {
		t.Fatalf("reinstate: %d %s", p.status, p.body)
	}
}
