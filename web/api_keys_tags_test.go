package web_test

import (
	"fmt"
	"testing"
)

// TestKeysAPITags: tags are set on create (normalised), kept by a PATCH
// that does not name them, replaced or removed by one that does, and an
// invalid tag is a 400 naming the field.
func TestKeysAPITags(t *testing.T) {
	f := newFixture(t)
	owner := f.browser()
	owner.signup("tags@example.com", "Acme")
	r := owner.mustStatus(owner.do("POST", "/api/v1/keys", map[string]any{"name": "svc", "tags": []string{"Team:Search", "ci"}}), 201)
	k := r.json(t)["key"].(map[string]any)
	if fmt.Sprint(k["tags"]) != "[ci team:search]" {
		t.Fatalf("created tags %v", k["tags"])
	}
	id := k["id"].(string)
	for _, tt := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"rpm": 5}, "[ci team:search]"},
		{map[string]any{"tags": []string{"batch"}}, "[batch]"},
		{map[string]any{"tags": []string{}}, "[]"},
	} {
		p := owner.mustStatus(owner.do("PATCH", "/api/v1/keys/"+id, tt.body), 200).json(t)
		if got := fmt.Sprint(p["tags"]); got != tt.want {
			t.Errorf("after %v: tags %s, want %s", tt.body, got, tt.want)
		}
	}
	bad := owner.mustStatus(owner.do("POST", "/api/v1/keys", map[string]any{"name": "bad", "tags": []string{"no spaces"}}), 400)
	if e := bad.json(t)["error"].(map[string]any); e["field"] != "tags" {
		t.Errorf("invalid tag error %s", bad.body)
	}
}
