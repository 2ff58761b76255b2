package app

import (
	"context"
	"io"
	"testing"

	"github.com/heddle-gw/heddle/tenancy"
)

// TestProviderSetSeesCredentialChanges: through the app's own wiring, a
// credential added or deleted on this replica changes the organisation's
// usable providers at once, not after the cache's TTL.
func TestProviderSetSeesCredentialChanges(t *testing.T) {
	ctx := context.Background()
	vars := map[string]string{"HEDDLE_DATA_DIR": t.TempDir()}
	c, err := openTenancy(ctx, func(k string) string { return vars[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.closeStores)
	u, org, err := c.accounts.Signup(ctx, tenancy.SignupInput{Email: "p@example.com", Password: "provider set 1234"})
	if err != nil {
		t.Fatal(err)
	}
	actor := tenancy.Actor{UserID: u.ID, OrgID: org.ID, Role: tenancy.RoleOwner}
	usable := func(want bool) {
		t.Helper()
		set, err := c.usable.UsableProviders(ctx, org.ID)
		if err != nil || set["openai"] != want || set["openai-responses"] != want {
			t.Fatalf("usable providers %v, %v; want openai %v", set, err, want)
		}
	}
	usable(false) // cached: no credential
	cred, err := c.creds.Add(ctx, actor, tenancy.CredentialInput{Provider: "openai", Secret: "sk-provider-set-0000"})
	if err != nil {
		t.Fatal(err)
	}
	usable(true)
	if err := c.creds.Delete(ctx, actor, cred.ID); err != nil {
		t.Fatal(err)
	}
	usable(false)
}
