package e2e

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// geminiModels returns the names Gemini's model list (GET /v1beta/models)
// gives key.
func geminiModels(t *testing.T, base, key string) map[string]bool {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/v1beta/models", nil)
	req.Header.Set("x-goog-api-key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || resp.StatusCode != 200 {
		t.Fatalf("gemini model list: %d %v", resp.StatusCode, err)
	}
	out := map[string]bool{}
	for _, m := range list.Models {
		out[m.Name] = true
	}
	return out
}

// TestHostedPlanDowngrade: an organisation on a hosted plan has gpt-5-mini's
// answer in the response cache; the operator then narrows the plan to
// gpt-5-nano. The model lists (OpenAI's and Gemini's) drop gpt-5-mini at
// once and keep gpt-5-nano, and the cached gpt-5-mini answer is not served
// again: the request is refused and nothing reaches the upstream.
func TestHostedPlanDowngrade(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	in := startHeddle(t, nil)
	op, planID := operatorSetup(t, in.URL, map[string]string{"HEDDLE_DATA_DIR": in.DataDir}, up.URL+"/v1", 10000)
	tn := signUp(t, in.URL, "downgrade@example.com", "", "", "")
	op.do("PUT", "/api/v1/operator/orgs/"+tn.OrgID+"/plan", map[string]any{"plan_id": planID}, 200, nil)
	op.do("POST", "/api/v1/operator/orgs/"+tn.OrgID+"/credits", map[string]any{"kind": "grant", "amount_micros": 5_000_000, "reason": "trial"}, 201, nil)

	if m, g := listedModels(t, in.URL, tn.Key), geminiModels(t, in.URL, tn.Key); !m["gpt-5-mini"] || !m["gpt-5-nano"] ||
		!g["models/gpt-5-mini"] || !g["models/gpt-5-nano"] {
		t.Fatalf("on the whole openai plan: /v1/models %v, gemini %v; want gpt-5-mini and gpt-5-nano", m, g)
	}
	ask := func() (*http.Response, string) {
		return chat(t, in.URL, tn.Key, `{"model":"gpt-5-mini","max_tokens":32,"messages":[{"role":"user","content":"What does a loom do?"}]}`)
	}
	testwait.Until(t, 10*time.Second, "gpt-5-mini's answer served from the cache", func() bool {
		resp, body := ask()
		if resp.StatusCode != 200 {
			t.Fatalf("gpt-5-mini on the plan: %d %s", resp.StatusCode, body)
		}
		return resp.Header.Get("x-heddle-route") == "cache"
	})
	calls := len(up.Requests())

	op.do("PUT", "/api/v1/operator/plans/"+planID, map[string]any{"name": "starter", "providers": []string{"openai"},
		"models": []string{"gpt-5-nano"}, "multiplier_bp": 10000}, 200, nil)
	if m, g := listedModels(t, in.URL, tn.Key), geminiModels(t, in.URL, tn.Key); m["gpt-5-mini"] || !m["gpt-5-nano"] || m["gpt-6.1-sol"] ||
		g["models/gpt-5-mini"] || !g["models/gpt-5-nano"] {
		t.Errorf("after the downgrade: /v1/models %v, gemini %v; want gpt-5-nano and no other openai model", m, g)
	}
	resp, body := ask()
	if resp.StatusCode == 200 || resp.Header.Get("x-heddle-route") == "cache" {
		t.Errorf("gpt-5-mini after the downgrade: %d route %q %s, want a refusal, not the cached answer", resp.StatusCode, resp.Header.Get("x-heddle-route"), body)
	}
	t.Logf("gpt-5-mini after the downgrade: %d %s", resp.StatusCode, resp.Header.Get("x-heddle-error"))
	if n := len(up.Requests()); n != calls {
		t.Errorf("the refused request reached the upstream (%d requests, %d before)", n, calls)
	}
}
