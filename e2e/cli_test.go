package e2e

import (
	"context"
	"regexp"
	"testing"
	"time"
)

// TestKeysCreateCLI: `heddle keys create` issues a working rk_ key for an
// organisation (here the first admin's "default" organisation), shown once.
func TestKeysCreateCLI(t *testing.T) {
	in := startHeddle(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := runCLI(ctx, t, map[string]string{"HEDDLE_DATA_DIR": in.DataDir}, "keys", "create", "--org", "default", "--name", "ci")
	if err != nil {
		t.Fatalf("keys create: %v\n%s", err, out)
	}
	key := regexp.MustCompile(`rk_[0-9A-Za-z]{40}`).FindString(out)
	if key == "" {
		t.Fatalf("no key in output:\n%s", out)
	}
	// The key authenticates: the answer is about the missing credential, not 401.
	resp, body := chat(t, in.URL, key, `{"model":"gpt-5-mini","messages":[{"role":"user","content":"hi"}]}`)
	if resp.StatusCode != 400 || resp.Header.Get("x-heddle-error") != "dispatch.provider_not_configured" {
		t.Errorf("CLI key: %d %q %s", resp.StatusCode, resp.Header.Get("x-heddle-error"), body)
	}
	if _, err := runCLI(ctx, t, map[string]string{"HEDDLE_DATA_DIR": in.DataDir}, "keys", "create", "--org", "no-such-org"); err == nil {
		t.Error("keys create for an unknown organisation succeeded")
	}
}
