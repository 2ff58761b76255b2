package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/llm"
)

// listedModels returns the ids /v1/models lists for key.
func listedModels(t *testing.T, base, key string) map[string]bool {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/v1/models", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var models struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&models); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range models.Data {
		out[m.ID] = true
	}
	return out
}

// TestTenantModels: organisation A adds its own OpenAI-compatible endpoint
// (the fake upstream on loopback, so private upstreams are allowed) and a
// model "acme-llama" with its own prices. Anthropic Messages requests for
// acme-llama, whole and streamed, and a Chat Completions request reach the
// endpoint as Chat Completions for the upstream id with A's secret; the
// Anthropic ones come back in Anthropic shape; the
// request rows carry the tenant price's cost. Organisation B gets 400
// unknown model and never reaches A's endpoint; /v1/models lists acme-llama
// for A only. A deployment that does not allow private upstreams refuses a
// loopback base URL (400 naming base_url).
func TestTenantModels(t *testing.T) {
	in := startHeddle(t, nil)
	up := dispatchtest.NewUpstream(t)
	up.Script("llama-up",
		dispatchtest.Step{Text: "whole from llama", InputTokens: 1000, OutputTokens: 500},
		dispatchtest.Step{Text: "streamed from llama", InputTokens: 2000, OutputTokens: 1000})
	a := signUp(t, in.URL, "acme@example.com", "", "", "")
	b := signUp(t, in.URL, "other@example.com", "", "", "")

	a.api.do("POST", "/api/v1/providers", map[string]string{
		"name": "acme", "base_url": up.URL + "/v1", "secret": fakeSecret}, 201, nil)
	// $2/M input, $4/M output.
	a.api.do("POST", "/api/v1/models", map[string]any{
		"id": "acme-llama", "provider": "acme", "upstream": "llama-up", "context_window": 32768, "max_output": 4096,
		"capabilities": map[string]bool{"tools": true},
		"price":        map[string]float64{"input": 2, "output": 4, "cache_read": 0, "cache_write": 0},
	}, 201, nil)

	const whole = `{"model":"acme-llama","max_tokens":100,"messages":[{"role":"user","content":"hello llama"}]}`
	resp, body := send(t, in.URL, a.Key, "", whole)
	if resp.StatusCode != 200 {
		t.Fatalf("whole: %d %s\n%s", resp.StatusCode, body, in.logs.String())
	}
	wholeID := resp.Header.Get("x-heddle-request-id")
	var msg struct {
		Type    string `json:"type"`
		Model   string `json:"model"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Usage struct {
			InputTokens  int `json:"input_tokens"`
			OutputTokens int `json:"output_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(body), &msg); err != nil {
		t.Fatalf("whole answer is not JSON: %s", body)
	}
	if msg.Type != "message" || len(msg.Content) != 1 || msg.Content[0].Type != "text" || msg.Content[0].Text != "whole from llama" ||
		msg.Usage.InputTokens != 1000 || msg.Usage.OutputTokens != 500 {
		t.Errorf("whole answer = %s", body)
	}

	// Another prompt, so the response cache does not answer it.
	streamed := strings.Replace(strings.Replace(whole, `"max_tokens":100`, `"max_tokens":100,"stream":true`, 1), "hello llama", "stream to me, llama", 1)
	resp, body = send(t, in.URL, a.Key, "", streamed)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("stream: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	streamID := resp.Header.Get("x-heddle-request-id")
	if !strings.Contains(body, "event: message_start") || anthropicStreamText(t, body) != "streamed from llama" ||
		!strings.Contains(body, "event: message_stop") {
		t.Errorf("streamed answer is not an Anthropic stream of the text:\n%s", body)
	}

	// An OpenAI Chat Completions caller reaches it too.
	resp, body = chat(t, in.URL, a.Key, `{"model":"acme-llama","messages":[{"role":"user","content":"chat with llama"}]}`)
	if resp.StatusCode != 200 || !strings.Contains(body, `"content":"Hello from llama-up"`) {
		t.Fatalf("chat: %d %s", resp.StatusCode, body)
	}

	reqs := up.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the endpoint got %d requests, want 3\n%s", len(reqs), in.logs.String())
	}
	for i, r := range reqs {
		if r.Format != llm.FormatChat || r.Path != "/v1/chat/completions" || r.Model != "llama-up" || r.Stream != (i == 1) ||
			r.Header.Get("Authorization") != "Bearer "+fakeSecret {
			t.Errorf("upstream request %d: format %s path %s model %q stream %v auth ok %v", i, r.Format, r.Path, r.Model, r.Stream,
				r.Header.Get("Authorization") == "Bearer "+fakeSecret)
		}
	}

	// Organisation B does not know acme-llama and never reaches A's endpoint.
	resp, body = send(t, in.URL, b.Key, "", whole)
	if resp.StatusCode != 400 || !strings.Contains(body, "acme-llama") || !strings.Contains(body, "not a known model") {
		t.Errorf("org B: %d %s", resp.StatusCode, body)
	}
	if n := len(up.Requests()); n != 3 {
		t.Errorf("org B's request reached A's endpoint (%d requests)", n)
	}
	if !listedModels(t, in.URL, a.Key)["acme-llama"] {
		t.Errorf("/v1/models does not list acme-llama for A")
	}
	if listedModels(t, in.URL, b.Key)["acme-llama"] {
		t.Errorf("/v1/models lists acme-llama for B")
	}

	// The provider's credential is tested by probing its cheapest model.
	var creds struct {
		Credentials []struct {
			ID       string `json:"id"`
			Provider string `json:"provider"`
		} `json:"credentials"`
	}
	a.api.do("GET", "/api/v1/credentials", nil, 200, &creds)
	if len(creds.Credentials) != 1 || creds.Credentials[0].Provider != "acme" {
		t.Fatalf("A's credentials: %+v", creds)
	}
	a.api.do("POST", "/api/v1/credentials/"+creds.Credentials[0].ID+"/test", nil, 200, nil)
	if r := up.Requests(); len(r) != 4 || r[3].Model != "llama-up" || r[3].Header.Get("Authorization") != "Bearer "+fakeSecret {
		t.Errorf("the credential test did not probe llama-up with A's secret (%d requests)", len(r))
	}

	// A provider with models cannot be deleted.
	a.api.do("DELETE", "/api/v1/providers/acme", nil, 409, nil)

	// The request and attempt rows carry the tenant price: 1000*$2/M + 500*$4/M = 4000
	// micros; 2000*$2/M + 1000*$4/M = 8000 micros. The baseline is itself.
	in.stop(t)
	db, err := sql.Open("sqlite", filepath.Join(in.DataDir, "heddle.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, tc := range []struct {
		id   string
		cost int64
	}{{wholeID, 4000}, {streamID, 8000}} {
		var served, provider, route string
		var status int
		var cost, baseline int64
		err := db.QueryRowContext(context.Background(), `SELECT served_model, provider, route_kind, status, cost_micros, baseline_micros FROM requests WHERE request_id = ?`, tc.id).
			Scan(&served, &provider, &route, &status, &cost, &baseline)
		if err != nil {
			t.Fatalf("request row %s: %v", tc.id, err)
		}
		if served != "acme-llama" || provider != "acme" || route != "explicit" || status != 200 || cost != tc.cost || baseline != tc.cost {
			t.Errorf("request row %s = %s %s %s %d cost %d baseline %d, want cost %d", tc.id, served, provider, route, status, cost, baseline, tc.cost)
		}
		// Its one attempt is priced the same (the attempt sink asks the
		// organisation's models for what the catalog lacks).
		var attemptCost int64
		var outcome string
		err = db.QueryRowContext(context.Background(), `SELECT outcome, cost_micros FROM attempts WHERE request_id = ?`, tc.id).Scan(&outcome, &attemptCost)
		if err != nil || outcome != "served" || attemptCost != tc.cost {
			t.Errorf("attempt row of %s: %s cost %d (%v), want served at %d", tc.id, outcome, attemptCost, err, tc.cost)
		}
	}
	for _, body := range a.api.bodies {
		if strings.Contains(body, fakeSecret) {
			t.Errorf("an API response contains the endpoint's secret: %s", body)
		}
	}
	if in.logContains(fakeSecret) {
		t.Error("the logs contain the endpoint's secret")
	}

	// Without private upstreams, a loopback base URL is refused.
	strict := startHeddle(t, map[string]string{"HEDDLE_ALLOW_PRIVATE_UPSTREAMS": "false"})
	c := signUp(t, strict.URL, "strict@example.com", "", "", "")
	var refused struct {
		Error struct {
			Code  string `json:"code"`
			Field string `json:"field"`
		} `json:"error"`
	}
	c.api.do("POST", "/api/v1/providers", map[string]string{
		"name": "acme", "base_url": "https://127.0.0.1:8443/v1", "secret": fakeSecret}, 400, &refused)
	if refused.Error.Field != "base_url" {
		t.Errorf("private base URL refused with %+v, want field base_url", refused.Error)
	}
}

// anthropicStreamText concatenates the text deltas of an Anthropic SSE body.
func anthropicStreamText(t *testing.T, body string) string {
	t.Helper()
	var text strings.Builder
	for _, line := range strings.Split(body, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type  string `json:"type"`
			Delta struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"delta"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("bad SSE data %q: %v", data, err)
		}
		if ev.Type == "content_block_delta" && ev.Delta.Type == "text_delta" {
			text.WriteString(ev.Delta.Text)
		}
	}
	return text.String()
}
