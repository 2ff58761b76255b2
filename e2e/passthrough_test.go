package e2e

import (
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
)

// TestPassThroughModel: Claude Code's default model name, which the catalog
// lacks, is served through the Anthropic endpoint with no alias configured:
// sent upstream as is, priced as the newest opus (an estimate the record
// notes). A pass-through name on the deny list is refused (403), and with
// the organisation's pass-through off the name is unknown again (400).
func TestPassThroughModel(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	in := startHeddle(t, nil)
	a := signUp(t, in.URL, "passthrough@example.com", "anthropic", "sk-ant-pass-000000000000", up.URL)
	body := `{"model":"claude-opus-9-9","max_tokens":64,"messages":[{"role":"user","content":"hello from claude code"}]}`
	resp, got := send(t, in.URL, a.Key, "", body)
	if resp.StatusCode != 200 || !strings.Contains(got, "Hello from claude-opus-9-9") {
		t.Fatalf("pass-through: %d %s", resp.StatusCode, got)
	}
	if m := up.Models(); len(m) != 1 || m[0] != "claude-opus-9-9" {
		t.Errorf("upstream models %v, want the name as sent", m)
	}
	if resp.Header.Get("x-heddle-model") != "claude-opus-9-9" || resp.Header.Get("x-heddle-provider") != "anthropic" {
		t.Errorf("served headers: model %q provider %q", resp.Header.Get("x-heddle-model"), resp.Header.Get("x-heddle-provider"))
	}

	var settings struct {
		Settings map[string]any `json:"settings"`
	}
	a.api.do("GET", "/api/v1/routing", nil, 200, &settings)
	if settings.Settings["passthrough"] != true {
		t.Errorf("passthrough setting %v, want true by default", settings.Settings)
	}
	a.api.do("PUT", "/api/v1/routing", map[string]any{"deny": []string{"claude-opus-9-9"}}, 200, nil)
	resp, got = send(t, in.URL, a.Key, "", strings.Replace(body, "hello", "denied", 1))
	if resp.StatusCode != 403 || resp.Header.Get("x-heddle-error") != "routing.model_not_allowed" {
		t.Errorf("denied pass-through: %d %q %s", resp.StatusCode, resp.Header.Get("x-heddle-error"), got)
	}
	a.api.do("PUT", "/api/v1/routing", map[string]any{"passthrough": false}, 200, &settings)
	if settings.Settings["passthrough"] != false {
		t.Errorf("passthrough setting %v after turning it off", settings.Settings)
	}
	resp, got = send(t, in.URL, a.Key, "", strings.Replace(body, "hello", "off", 1))
	if resp.StatusCode != 400 || resp.Header.Get("x-heddle-error") != "request.unknown_model" {
		t.Errorf("pass-through off: %d %q %s", resp.StatusCode, resp.Header.Get("x-heddle-error"), got)
	}
	if n := len(up.Requests()); n != 1 {
		t.Errorf("refused turns reached the upstream (%d requests)", n)
	}

	// The served turn is priced as claude-opus-4-5 ($5/M in, $25/M out:
	// 10 and 5 tokens = 175 micros) and noted as an estimate.
	rows, attempts, _ := orgRequests(t, in, a.OrgID)
	if len(rows) != 3 {
		t.Fatalf("request rows %+v", rows)
	}
	r := rows[0]
	if r.decision != "explicit:claude-opus-9-9 price:estimated:claude-opus-4-5" || r.cost != 175 || r.status != 200 {
		t.Errorf("request row %+v, want 175 micros noted price:estimated:claude-opus-4-5", r)
	}
	if got := attempts[r.id]; len(got) != 1 || got[0] != "served::175" {
		t.Errorf("attempt rows %v, want one served at 175", got)
	}
}
