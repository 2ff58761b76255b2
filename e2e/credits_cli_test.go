package e2e

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
)

// TestOperatorCLIAndPlatformRotation: `heddle operator add` grants the
// operator role (refused before, allowed after); the platform credential is
// sealed under the platform organisation's data key, which `heddle vault
// rotate` re-wraps and `--reencrypt-org heddle-platform` re-encrypts; after
// a restart it still serves the organisation on the plan.
func TestOperatorCLIAndPlatformRotation(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	dataDir := t.TempDir()
	env := map[string]string{"HEDDLE_DATA_DIR": dataDir}
	in := startHeddle(t, env)
	op := signUp(t, in.URL, "ops@example.com", "", "", "").api
	op.do("GET", "/api/v1/operator/orgs", nil, 403, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cliEnv := map[string]string{"HEDDLE_DATA_DIR": dataDir, "HEDDLE_MASTER_KEYSET_FILE": filepath.Join(dataDir, "master-keyset.json")}
	if out, err := runCLI(ctx, t, cliEnv, "keys", "create", "--org", "heddle-platform"); err == nil {
		t.Fatalf("a key was issued for the platform organisation: %s", out)
	}
	if out, err := runCLI(ctx, t, cliEnv, "operator", "add", "nobody@example.com"); err == nil {
		t.Fatalf("operator add of an unknown user succeeded: %s", out)
	}
	if out, err := runCLI(ctx, t, cliEnv, "operator", "add", "OPS@example.com"); err != nil || !strings.Contains(out, "ops@example.com is an operator") {
		t.Fatalf("operator add: %v %s", err, out)
	}
	tn := signUp(t, in.URL, "rotated@example.com", "", "", "")
	op.do("POST", "/api/v1/operator/operators", map[string]any{"email": "rotated@example.com"}, 201, nil)
	var ops struct {
		Operators []struct {
			Email     string `json:"email"`
			CreatedBy string `json:"created_by"`
		} `json:"operators"`
	}
	tn.api.do("GET", "/api/v1/operator/operators", nil, 200, &ops)
	if len(ops.Operators) != 2 || ops.Operators[0].Email != "ops@example.com" || ops.Operators[0].CreatedBy != "cli" {
		t.Fatalf("operators %+v", ops)
	}
	var plan struct {
		ID string `json:"id"`
	}
	op.do("POST", "/api/v1/operator/plans", map[string]any{"name": "rot", "providers": []string{"openai"}, "multiplier_bp": 10000}, 201, &plan)
	op.do("POST", "/api/v1/operator/credentials", map[string]any{"provider": "openai", "label": "platform", "secret": platformSecret, "base_url": up.URL + "/v1"}, 201, nil)
	var listed struct {
		Credentials []struct {
			LastFour string `json:"last_four"`
		} `json:"credentials"`
	}
	op.do("GET", "/api/v1/operator/credentials", nil, 200, &listed)
	if len(listed.Credentials) != 1 || listed.Credentials[0].LastFour != platformSecret[len(platformSecret)-4:] {
		t.Fatalf("platform credentials: %+v", listed)
	}
	for _, b := range op.bodies {
		if strings.Contains(b, platformSecret) {
			t.Fatalf("an operator API answer contains the platform secret: %s", b)
		}
	}
	op.do("PUT", "/api/v1/operator/orgs/"+tn.OrgID+"/plan", map[string]any{"plan_id": plan.ID}, 200, nil)
	op.do("POST", "/api/v1/operator/orgs/"+tn.OrgID+"/credits", map[string]any{"kind": "grant", "amount_micros": 1_000_000}, 201, nil)
	if resp, b := chat(t, in.URL, tn.Key, chatBody(1)); resp.StatusCode != 200 {
		t.Fatalf("before rotation: %d %s", resp.StatusCode, b)
	}
	envOp := signUp(t, in.URL, "envop@example.com", "", "", "").api
	envOp.do("GET", "/api/v1/operator/plans", nil, 403, nil)
	in.stop(t)

	out, err := runCLI(ctx, t, cliEnv, "vault", "rotate", "--reencrypt-org", "heddle-platform")
	if err != nil || !strings.Contains(out, "1 data keysets re-wrapped") || !strings.Contains(out, "1 credentials re-encrypted") {
		t.Fatalf("vault rotate: %v %s", err, out)
	}
	// HEDDLE_OPERATOR_EMAIL grants a user who signed up before the start.
	in2 := startHeddle(t, map[string]string{"HEDDLE_DATA_DIR": dataDir, "HEDDLE_OPERATOR_EMAIL": "EnvOp@example.com"})
	envOp.base = in2.URL
	envOp.do("GET", "/api/v1/operator/plans", nil, 200, nil)
	before := len(up.Requests())
	if resp, b := chat(t, in2.URL, tn.Key, chatBody(2)); resp.StatusCode != 200 {
		t.Fatalf("after rotation and restart: %d %s", resp.StatusCode, b)
	}
	if got := up.Requests()[before].Header.Get("Authorization"); got != "Bearer "+platformSecret {
		t.Errorf("after rotation the upstream saw %q", got)
	}
}
