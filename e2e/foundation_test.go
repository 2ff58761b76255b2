package e2e

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/glebarez/go-sqlite"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/internal/testwait"
)

const fakeSecret = "sk-e2e-PLAINTEXT-4f9a1c77d2b84e0e9b7f"

// chat sends a Chat Completions request with key and returns the response.
func chat(t *testing.T, base, key, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, string(raw)
}

// streamedText concatenates the content deltas of an OpenAI SSE body and
// reports whether it ended with [DONE].
func streamedText(t *testing.T, body string) (string, bool) {
	t.Helper()
	var text strings.Builder
	done := false
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "data: ") {
			continue
		}
		data := strings.TrimPrefix(line, "data: ")
		if data == "[DONE]" {
			done = true
			continue
		}
		var chunk struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &chunk); err != nil {
			t.Fatalf("bad SSE data %q: %v", data, err)
		}
		for _, c := range chunk.Choices {
			text.WriteString(c.Delta.Content)
		}
	}
	return text.String(), done
}

// TestFoundationJourney follows the README from sign-up to a streamed chat
// completion answered by a fake OpenAI-compatible upstream with the
// credential the tenant uploaded, then checks isolation, revocation, that
// the secret is stored nowhere in plaintext, and that the request and its
// attempt were recorded in the embedded analytics store.
func TestFoundationJourney(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	up.Script("gpt-5-mini", dispatchtest.OK("Hello from the fake upstream"))
	in := startHeddle(t, nil)
	t.Logf("/healthz answered %v after start", in.started)
	if in.started > 10*time.Second {
		t.Errorf("healthz took %v, want < 10s", in.started)
	}

	a := signUp(t, in.URL, "alice@example.com", "openai", fakeSecret, up.URL+"/v1")
	resp, body := chat(t, in.URL, a.Key, `{"model":"gpt-5-mini","stream":true,"messages":[{"role":"user","content":"Say hello"}]}`)
	if resp.StatusCode != 200 {
		t.Fatalf("stream status %d: %s", resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Errorf("content type %q", ct)
	}
	text, done := streamedText(t, body)
	if text != "Hello from the fake upstream" || !done {
		t.Fatalf("streamed text %q done=%v; body:\n%s", text, done, body)
	}
	for h, want := range map[string]string{"x-heddle-model": "gpt-5-mini", "x-heddle-provider": "openai", "x-heddle-route": "explicit"} {
		if got := resp.Header.Get(h); got != want {
			t.Errorf("%s = %q, want %q", h, got, want)
		}
	}
	reqID := resp.Header.Get("x-heddle-request-id")
	if reqID == "" {
		t.Error("no x-heddle-request-id")
	}
	reqs := up.Requests()
	if len(reqs) != 1 {
		t.Fatalf("upstream got %d requests, want 1", len(reqs))
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer "+fakeSecret {
		t.Errorf("upstream Authorization = %q, want the uploaded credential", got)
	}
	if !strings.Contains(string(reqs[0].Body), `"include_usage":true`) {
		t.Errorf("Heddle did not ask the upstream for stream usage: %s", reqs[0].Body)
	}
	if reqs[0].Path != "/v1/chat/completions" || reqs[0].Model != "gpt-5-mini" || !reqs[0].Stream {
		t.Errorf("upstream request = %s model %q stream %v", reqs[0].Path, reqs[0].Model, reqs[0].Stream)
	}

	// /v1/models lists what this organisation can reach (an openai credential).
	mreq, _ := http.NewRequest("GET", in.URL+"/v1/models", nil)
	mreq.Header.Set("Authorization", "Bearer "+a.Key)
	mresp, err := http.DefaultClient.Do(mreq)
	if err != nil {
		t.Fatal(err)
	}
	var models struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(mresp.Body).Decode(&models); err != nil {
		t.Fatal(err)
	}
	mresp.Body.Close()
	listed := map[string]bool{}
	for _, m := range models.Data {
		listed[m.ID] = true
	}
	if !listed["auto"] || !listed["gpt-5-mini"] || listed["claude-haiku-4-5"] || listed["gemini-2.5-flash"] {
		t.Errorf("/v1/models = %v, want auto and the openai models only", models.Data)
	}

	// Organisation B has no credential: its key never reaches A's.
	b := signUp(t, in.URL, "bob@example.com", "", "", "")
	resp, body = chat(t, in.URL, b.Key, `{"model":"gpt-5-mini","messages":[{"role":"user","content":"hi"}]}`)
	if resp.StatusCode != 400 || resp.Header.Get("x-heddle-error") != "dispatch.provider_not_configured" {
		t.Errorf("org B: status %d %q: %s", resp.StatusCode, resp.Header.Get("x-heddle-error"), body)
	}
	if n := len(up.Requests()); n != 1 {
		t.Errorf("org B's request reached the upstream (%d requests)", n)
	}

	// Unknown and revoked keys: one opaque 401 in OpenAI's error shape.
	checkUnauthorized := func(key string) bool {
		resp, body := chat(t, in.URL, key, `{"model":"gpt-5-mini","messages":[{"role":"user","content":"hi"}]}`)
		var e struct {
			Error struct {
				Message string `json:"message"`
				Type    string `json:"type"`
				Code    string `json:"code"`
			} `json:"error"`
		}
		_ = json.Unmarshal([]byte(body), &e)
		return resp.StatusCode == 401 && resp.Header.Get("x-heddle-error") == "tenancy.unauthorized" && e.Error.Message != ""
	}
	if !checkUnauthorized("rk_" + strings.Repeat("x", 40)) {
		t.Error("unknown key did not get a 401 in OpenAI's shape")
	}
	a.api.do("DELETE", "/api/v1/keys/"+a.KeyID, nil, 200, nil)
	testwait.Until(t, time.Minute, "the revoked key refused", func() bool { return checkUnauthorized(a.Key) })
	if n := len(up.Requests()); n != 1 {
		t.Errorf("upstream requests = %d after unauthorized calls, want 1", n)
	}

	// The cost report (CSV, by model) shows the request once the writer flushed.
	var csv string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		req, _ := http.NewRequest("GET", in.URL+"/api/v1/reports/cost?group=model&format=csv", nil)
		req.Header.Set("Authorization", "Bearer "+a.api.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if csv = string(b); resp.StatusCode == 200 && strings.Contains(csv, "gpt-5-mini,1,") {
			break
		}
	}
	if !strings.HasPrefix(csv, "model,requests,") || !strings.Contains(csv, "gpt-5-mini,1,0,0,10,5,0.000013,") {
		t.Errorf("cost report:\n%s", csv)
	}

	// The credential list never shows the secret.
	a.api.do("GET", "/api/v1/credentials", nil, 200, nil)
	in.stop(t)
	for _, body := range a.api.bodies {
		if strings.Contains(body, fakeSecret) || strings.Contains(body, fakeSecret[8:]) {
			t.Errorf("an API response contains the credential: %s", body)
		}
	}
	if in.logContains(fakeSecret) || in.logContains(fakeSecret[8:]) {
		t.Error("the logs contain the credential")
	}
	err = filepath.Walk(in.DataDir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), fakeSecret) || strings.Contains(string(data), fakeSecret[8:]) {
			t.Errorf("%s contains the credential in plaintext", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// The request and its attempt are in the embedded analytics store.
	db, err := sql.Open("sqlite", filepath.Join(in.DataDir, "heddle.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var served, route string
	var status, attempts, inTok, outTok, cost int
	if err := db.QueryRowContext(ctx, `SELECT served_model, route_kind, status, attempts, input_tokens, output_tokens, cost_micros FROM requests WHERE request_id = ?`, reqID).
		Scan(&served, &route, &status, &attempts, &inTok, &outTok, &cost); err != nil {
		var n1, n2 int
		_ = db.QueryRow(`SELECT count(*) FROM requests`).Scan(&n1)
		_ = db.QueryRow(`SELECT count(*) FROM attempts`).Scan(&n2)
		t.Fatalf("request row %s: %v (requests %d attempts %d)\n%s", reqID, err, n1, n2, in.logs.String())
	}
	if served != "gpt-5-mini" || route != "explicit" || status != 200 || attempts != 1 {
		t.Errorf("request row = %s %s %d %d", served, route, status, attempts)
	}
	// The caller did not ask for stream usage; Heddle asked upstream anyway
	// and priced it: 10 input tokens at $0.25/M + 5 output at $2/M = 12.5 -> 13 micros.
	if inTok != 10 || outTok != 5 || cost != 13 {
		t.Errorf("usage %d/%d cost %d micros, want 10/5 and 13", inTok, outTok, cost)
	}
	if strings.Contains(body, `"usage"`) {
		t.Errorf("the client got a usage chunk it did not ask for:\n%s", body)
	}
	var outcome, provider string
	var idx int
	if err := db.QueryRowContext(ctx, `SELECT outcome, provider, attempt_index FROM attempts WHERE request_id = ?`, reqID).
		Scan(&outcome, &provider, &idx); err != nil {
		t.Fatalf("attempt row %s: %v", reqID, err)
	}
	if outcome != "served" || provider != "openai" || idx != 0 {
		t.Errorf("attempt row = %s %s %d", outcome, provider, idx)
	}
}
