package e2e

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
)

// send posts an Anthropic Messages request and returns the response head and body.
func send(t *testing.T, base, key, session, body string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/v1/messages", strings.NewReader(body))
	req.Header.Set("x-api-key", key)
	req.Header.Set("anthropic-version", "2023-06-01")
	req.Header.Set("content-type", "application/json")
	if session != "" {
		req.Header.Set("X-Claude-Code-Session-Id", session)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b := new(strings.Builder)
	_, _ = io_copy(b, resp)
	return resp, b.String()
}

// untilCached repeats body until it is served from the caller's cache: the
// cache is written in the background after an answer, so the first repeat
// may come too early. Every answer before that must be a 200 from upstream;
// it fails when the test's deadline nears first.
func untilCached(t *testing.T, url, key, body string) {
	t.Helper()
	deadline, hasDeadline := t.Deadline()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		resp, got := send(t, url, key, "", body)
		route := resp.Header.Get("x-heddle-route")
		if route == "cache" {
			return
		}
		if resp.StatusCode != 200 || route != "explicit" {
			t.Fatalf("repeat before the cache was written: %d route %q: %s", resp.StatusCode, route, got)
		}
		if hasDeadline && time.Until(deadline) < 30*time.Second {
			t.Fatalf("the repeat was never served from the cache (last route %q)", route)
		}
		<-tick.C
	}
}

// TestRoutingPinsAndCache: routed turns of one Claude Code session stay on
// one model, across a restart (Postgres); another user with the same
// session id and prompts gets a pin of its own; repeats are served from the
// user's cache (whole and as a stream) and never from another user's; an
// organisation with no usable provider fails closed.
func TestRoutingPinsAndCache(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	pg := freshPostgres(t)
	// One master keyset across the restart. The semantic cache tier is off
	// by default with lexical-v1 (it does not pay there); turned on here to
	// exercise it.
	env := map[string]string{"HEDDLE_DATABASE_URL": pg, "HEDDLE_DATA_DIR": t.TempDir(), "HEDDLE_CACHE_SEMANTIC": "on"}
	in := startHeddle(t, env)
	a := signUp(t, in.URL, "routing@example.com", "anthropic", "sk-ant-e2e-000000000000", up.URL)
	a.api.do("POST", "/api/v1/credentials", map[string]any{"provider": "openai", "secret": "sk-e2e-openai-0000000", "base_url": up.URL + "/v1"}, 201, nil)
	var k2 struct {
		Secret string `json:"secret"`
	}
	a.api.do("POST", "/api/v1/keys", map[string]any{"name": "second user", "scopes": []string{"inference"}}, 201, &k2)

	// A Claude Code-sized session: a long system prompt (tool docs), one
	// instruction, then tool-call / tool-result turns. Tool-result turns are
	// routed by the instruction that started them, and the pinned model's
	// prompt cache makes staying cheaper, so the session keeps its model.
	system := "You are a coding agent. " + strings.Repeat("Tool Bash runs a shell command in the workspace and returns its output. ", 600)
	tools := `[{"name":"Bash","description":"Run a command","input_schema":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}]`
	history := []string{`{"role":"user","content":"Refactor parse.go to remove the global variable and add a unit test."}`}
	request := func() string {
		return `{"model":"auto","max_tokens":256,"system":"` + system + `","tools":` + tools + `,"messages":[` + strings.Join(history, ",") + `]}`
	}
	var pinned string
	for i := 0; i < 4; i++ {
		resp, body := send(t, in.URL, a.Key, "session-1", request())
		if resp.StatusCode != 200 {
			t.Fatalf("turn %d: %d %s", i, resp.StatusCode, body)
		}
		model, route := resp.Header.Get("x-heddle-model"), resp.Header.Get("x-heddle-route")
		t.Logf("user A turn %d: model %s route %s", i, model, route)
		switch {
		case i == 0 && route != "routed":
			t.Errorf("first turn route = %q, want routed", route)
		case i == 0:
			pinned = model
		case route != "pinned" || model != pinned:
			t.Errorf("turn %d: model %s route %s, want pinned to %s", i, model, route, pinned)
		}
		id := "toolu_0" + string(rune('1'+i))
		history = append(history,
			`{"role":"assistant","content":[{"type":"tool_use","id":"`+id+`","name":"Bash","input":{"command":"go test ./..."}}]}`,
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+id+`","content":"ok parse 0.01s"}]}`)
	}
	// User B: same session id, same first turn: its own pin, routed afresh.
	first := `{"model":"auto","max_tokens":256,"system":"` + system + `","tools":` + tools + `,"messages":[` + history[0] + `]}`
	resp, body := send(t, in.URL, k2.Secret, "session-1", first)
	if resp.StatusCode != 200 || resp.Header.Get("x-heddle-route") != "routed" {
		t.Errorf("user B shares user A's pin: %d route %q %s", resp.StatusCode, resp.Header.Get("x-heddle-route"), body)
	}

	// Cache: user A repeats a finished request exactly: served from cache...
	simple := `{"model":"gpt-5-mini","max_tokens":64,"system":"Answer briefly.","messages":[{"role":"user","content":"What is the capital of France?"}]}`
	if resp, body = send(t, in.URL, a.Key, "", simple); resp.StatusCode != 200 || resp.Header.Get("x-heddle-route") != "explicit" {
		t.Fatalf("first ask: %d %q %s", resp.StatusCode, resp.Header.Get("x-heddle-route"), body)
	}
	untilCached(t, in.URL, a.Key, simple)
	// ...a paraphrase that differs only in case and spacing hits the semantic tier...
	para := strings.Replace(simple, "What is the capital of France?", "what is the capital of  France?", 1)
	if resp, _ = send(t, in.URL, a.Key, "", para); resp.Header.Get("x-heddle-route") != "cache" {
		t.Errorf("near-identical wording route = %q, want cache", resp.Header.Get("x-heddle-route"))
	}
	// ...and as a stream when asked.
	streamBody := strings.Replace(simple, `"max_tokens":64,`, `"max_tokens":64,"stream":true,`, 1)
	resp, body = send(t, in.URL, a.Key, "", streamBody)
	if resp.Header.Get("x-heddle-route") != "cache" || !strings.Contains(body, "event: message_stop") || !strings.HasPrefix(resp.Header.Get("content-type"), "text/event-stream") {
		t.Errorf("streamed repeat: route %q type %q body %s", resp.Header.Get("x-heddle-route"), resp.Header.Get("content-type"), body)
	}
	// User B sends the identical request: never user A's cached answer.
	if resp, _ = send(t, in.URL, k2.Secret, "", simple); resp.Header.Get("x-heddle-route") == "cache" {
		t.Error("user B received user A's cached answer")
	}
	other := simple
	// A different system prompt never hits.
	other = strings.Replace(other, "Answer briefly.", "Answer at length.", 1)
	resp, _ = send(t, in.URL, a.Key, "", other)
	if resp.Header.Get("x-heddle-route") == "cache" {
		t.Error("a different system prompt hit the cache")
	}
	// no-cache bypasses the lookup.
	resp, _ = send(t, in.URL, a.Key, "", simple, "Cache-Control", "no-cache")
	if resp.Header.Get("x-heddle-route") == "cache" {
		t.Error("Cache-Control: no-cache was served from cache")
	}

	// Pins survive a restart on Postgres.
	in.stop(t)
	in2 := startHeddle(t, env)
	history = append(history,
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_09","name":"Bash","input":{"command":"go vet ./..."}}]}`,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_09","content":"ok"}]}`)
	resp, body = send(t, in2.URL, a.Key, "session-1", request())
	if resp.StatusCode != 200 {
		t.Fatalf("after restart: %d %s\n%s", resp.StatusCode, body, in2.logs.String())
	}
	if resp.Header.Get("x-heddle-route") != "pinned" || resp.Header.Get("x-heddle-model") != pinned {
		t.Errorf("after restart: model %s route %s, want pinned to %s", resp.Header.Get("x-heddle-model"), resp.Header.Get("x-heddle-route"), pinned)
	}
	t.Logf("after restart: model %s route %s (pinned before: %s)", resp.Header.Get("x-heddle-model"), resp.Header.Get("x-heddle-route"), pinned)

	// Fail closed: an organisation with no provider credential gets 503
	// routing.unavailable in its own format, and nothing is sent upstream.
	b := signUp(t, in2.URL, "nocreds@example.com", "", "", "")
	before := len(up.Requests())
	resp, body = send(t, in2.URL, b.Key, "", first)
	if resp.StatusCode != 503 || resp.Header.Get("x-heddle-error") != "routing.unavailable" || !strings.Contains(body, `"type":"error"`) {
		t.Errorf("no eligible model: %d %q %s", resp.StatusCode, resp.Header.Get("x-heddle-error"), body)
	}
	if len(up.Requests()) != before {
		t.Error("a fail-closed request reached the upstream")
	}
}

// TestCountTokens: count_tokens for an Anthropic model is forwarded to the
// organisation's Anthropic upstream; for any other model it is an estimate,
// marked x-heddle-estimate: 1.
func TestCountTokens(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	in := startHeddle(t, nil)
	a := signUp(t, in.URL, "count@example.com", "anthropic", "sk-ant-count-00000000", up.URL)
	body := `{"model":"claude-haiku-4-5","system":"Be brief.","messages":[{"role":"user","content":"How many tokens is this?"}]}`
	req, _ := http.NewRequest("POST", in.URL+"/v1/messages/count_tokens", strings.NewReader(body))
	req.Header.Set("x-api-key", a.Key)
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got := new(strings.Builder)
	_, _ = io_copy(got, resp)
	resp.Body.Close()
	reqs := up.Requests()
	if resp.StatusCode != 200 || resp.Header.Get("x-heddle-estimate") != "" || len(reqs) != 1 {
		t.Fatalf("forwarded count: %d estimate=%q upstream calls %d: %s", resp.StatusCode, resp.Header.Get("x-heddle-estimate"), len(reqs), got)
	}
	if reqs[0].Path != "/v1/messages/count_tokens" || reqs[0].Model != "claude-haiku-4-5-20251001" {
		t.Errorf("upstream got %s model %q", reqs[0].Path, reqs[0].Model)
	}
	if want := `{"input_tokens":` + itoa(len(reqs[0].Body)/4) + `}`; got.String() != want {
		t.Errorf("body %s, want the upstream's %s", got, want)
	}
	req, _ = http.NewRequest("POST", in.URL+"/v1/messages/count_tokens", strings.NewReader(strings.Replace(body, "claude-haiku-4-5", "gpt-5-mini", 1)))
	req.Header.Set("x-api-key", a.Key)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("x-heddle-estimate") != "1" || len(up.Requests()) != 1 {
		t.Errorf("estimated count: %d estimate=%q", resp.StatusCode, resp.Header.Get("x-heddle-estimate"))
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
