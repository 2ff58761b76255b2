package e2e

import (
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// contentOf reads GET /api/v1/requests/{id}/content: the status and body.
func contentOf(t *testing.T, a *apiClient, id string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("GET", a.base+"/api/v1/requests/"+id+"/content", nil)
	req.Header.Set("Authorization", "Bearer "+a.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a.bodies = append(a.bodies, string(raw))
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	return resp.StatusCode, m
}

// waitContent polls until the request's content is readable (it is stored
// in the background after the answer).
func waitContent(t *testing.T, a *apiClient, id string) map[string]any {
	t.Helper()
	var m map[string]any
	testwait.Until(t, time.Minute, "content of "+id+" stored", func() bool {
		var status int
		status, m = contentOf(t, a, id)
		return status == 200
	})
	return m
}

// consolePage logs in to the console as email and returns GET path's HTML
// once it answers 200 (the request row is recorded in the background).
func consolePage(t *testing.T, base, email, path string) string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Post(base+"/api/v1/login", "application/json",
		strings.NewReader(`{"email":"`+email+`","password":"correct horse battery staple"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("login %s: %d", email, resp.StatusCode)
	}
	var page string
	testwait.Until(t, time.Minute, "GET "+path+" answering 200", func() bool {
		resp, err := c.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		page = string(raw)
		return resp.StatusCode == 200
	})
	return page
}

// TestContentOptIn: prompts and answers are stored only after an
// organisation opts in (SPEC 8): then a chat completion and a streamed
// Anthropic request are readable through the API and on the console's
// request page, never by another organisation; expiry and delete-all
// remove them; neither the credential nor the prompt reach the logs.
func TestContentOptIn(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	in := startHeddle(t, map[string]string{"HEDDLE_CONTENT_JANITOR_INTERVAL": "200ms"})
	a := signUp(t, in.URL, "content@example.com", "openai", fakeSecret, up.URL+"/v1")
	a.api.do("POST", "/api/v1/credentials", map[string]any{"provider": "anthropic", "secret": "sk-ant-e2e-CONTENT-0000000000", "base_url": up.URL}, 201, nil)
	b := signUp(t, in.URL, "other@example.com", "", "", "")
	setupA, setupB := len(a.api.bodies), len(b.api.bodies) // key creation answers carry the key, once

	// Off by default: no row, 404.
	var priv map[string]any
	a.api.do("GET", "/api/v1/privacy", nil, 200, &priv)
	if priv["store_content"] != false || priv["retention_days"] != float64(7) {
		t.Fatalf("default privacy: %v", priv)
	}
	up.Script("gpt-5-mini", dispatchtest.OK("answer while off"))
	resp, body := chat(t, in.URL, a.Key, `{"model":"gpt-5-mini","messages":[{"role":"user","content":"PROMPT-zebra-off"}]}`)
	if resp.StatusCode != 200 {
		t.Fatalf("chat: %d %s", resp.StatusCode, body)
	}
	offID := resp.Header.Get("x-heddle-request-id")
	time.Sleep(300 * time.Millisecond)
	if status, _ := contentOf(t, a.api, offID); status != 404 {
		t.Fatalf("content stored while off: %d", status)
	}

	// Opt in; a bad retention names the field.
	a.api.do("PUT", "/api/v1/privacy", map[string]any{"store_content": true, "retention_days": 0}, 400, nil)
	if last := a.api.bodies[len(a.api.bodies)-1]; !strings.Contains(last, `"field":"retention_days"`) {
		t.Fatalf("validation error: %s", last)
	}
	a.api.do("PUT", "/api/v1/privacy", map[string]any{"store_content": true, "retention_days": 2}, 200, &priv)
	if priv["store_content"] != true || priv["retention_days"] != float64(2) {
		t.Fatalf("privacy after PUT: %v", priv)
	}

	// A chat completion.
	up.Script("gpt-5-mini", dispatchtest.OK("ANSWER-whole <b>bold</b>"))
	resp, body = chat(t, in.URL, a.Key, `{"model":"gpt-5-mini","messages":[{"role":"user","content":"PROMPT-zebra-chat <script>x</script>"}]}`)
	if resp.StatusCode != 200 {
		t.Fatalf("chat: %d %s", resp.StatusCode, body)
	}
	chatID := resp.Header.Get("x-heddle-request-id")
	m := waitContent(t, a.api, chatID)
	// Now that a later request's content has arrived, the one sent while off
	// still has none (not merely "not yet").
	if status, _ := contentOf(t, a.api, offID); status != 404 {
		t.Fatalf("content stored while off: %d", status)
	}
	if !strings.Contains(m["request"].(string), "PROMPT-zebra-chat <script>x</script>") || !strings.Contains(m["response"].(string), "ANSWER-whole <b>bold</b>") ||
		m["key_id"] != a.KeyID || m["request_truncated"] != false {
		t.Fatalf("chat content: %v", m)
	}

	// The same request again is answered from the cache (stored in the
	// background, so it may take a repeat or two); its content is stored too.
	var cacheID string
	for i := 0; i < 40 && cacheID == ""; i++ {
		resp, body = chat(t, in.URL, a.Key, `{"model":"gpt-5-mini","messages":[{"role":"user","content":"PROMPT-zebra-chat <script>x</script>"}]}`)
		if resp.StatusCode != 200 {
			t.Fatalf("repeat: %d %s", resp.StatusCode, body)
		}
		if resp.Header.Get("x-heddle-route") == "cache" {
			cacheID = resp.Header.Get("x-heddle-request-id")
		} else {
			time.Sleep(50 * time.Millisecond)
		}
	}
	if cacheID == "" {
		t.Fatal("the repeat was never served from the cache")
	}
	m = waitContent(t, a.api, cacheID)
	if !strings.Contains(m["request"].(string), "PROMPT-zebra-chat") || !strings.Contains(m["response"].(string), "ANSWER-whole <b>bold</b>") {
		t.Fatalf("cache hit content: %v", m)
	}

	// A streamed Anthropic request: the content is the collected stream.
	up.Script("claude-haiku-4-5-20251001", dispatchtest.OK("ANSWER-streamed from claude"))
	resp, body = send(t, in.URL, a.Key, "", `{"model":"claude-haiku-4-5","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"PROMPT-zebra-stream"}]}`)
	if resp.StatusCode != 200 || !strings.Contains(body, "ANSWER-streamed") {
		t.Fatalf("stream: %d %s", resp.StatusCode, body)
	}
	streamID := resp.Header.Get("x-heddle-request-id")
	m = waitContent(t, a.api, streamID)
	if !strings.Contains(m["request"].(string), "PROMPT-zebra-stream") || !strings.Contains(m["response"].(string), "ANSWER-streamed from claude") {
		t.Fatalf("stream content: %v", m)
	}

	// The console's request page shows them, escaped in a <pre>.
	html := consolePage(t, in.URL, "content@example.com", "/requests/"+chatID)
	if !strings.Contains(html, `data-testid="content-request"`) || !strings.Contains(html, "PROMPT-zebra-chat &lt;script&gt;x&lt;/script&gt;") ||
		!strings.Contains(html, "ANSWER-whole &lt;b&gt;bold&lt;/b&gt;") || strings.Contains(html, "<script>x</script>") {
		t.Fatalf("console timeline does not show the escaped content:\n%s", html)
	}
	html = consolePage(t, in.URL, "content@example.com", "/requests/"+streamID)
	if !strings.Contains(html, "ANSWER-streamed from claude") {
		t.Fatalf("console timeline of the stream:\n%s", html)
	}
	html = consolePage(t, in.URL, "content@example.com", "/requests/"+offID)
	if !strings.Contains(html, `data-testid="content-not-stored"`) || !strings.Contains(html, "Content not stored") {
		t.Fatalf("console timeline of a request made while off:\n%s", html)
	}

	// Another organisation gets 404.
	if status, _ := contentOf(t, b.api, chatID); status != 404 {
		t.Fatalf("another organisation reads the content: %d", status)
	}

	// Expiry: the janitor deletes an expired row.
	db, err := sql.Open("sqlite", filepath.Join(in.DataDir, "heddle.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("UPDATE request_content SET expires_ms = 0 WHERE request_id = ?", streamID); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		if err := db.QueryRow("SELECT COUNT(*) FROM request_content WHERE request_id = ?", streamID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the janitor did not delete the expired row")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if status, _ := contentOf(t, a.api, streamID); status != 404 {
		t.Fatalf("expired content readable: %d", status)
	}
	// The row at rest is sealed.
	var sealed []byte
	if err := db.QueryRow("SELECT request_sealed FROM request_content WHERE request_id = ?", chatID).Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(sealed), "PROMPT-zebra") {
		t.Fatal("stored content is plaintext")
	}

	// Opting out keeps what was stored; delete-all removes it.
	a.api.do("PUT", "/api/v1/privacy", map[string]any{"store_content": false, "retention_days": 2}, 200, nil)
	if status, _ := contentOf(t, a.api, chatID); status != 200 {
		t.Fatalf("opting out deleted content: %d", status)
	}
	var del map[string]any
	a.api.do("DELETE", "/api/v1/privacy/content", nil, 200, &del)
	if del["deleted"] != float64(2) { // the chat and the cache hit; the stream expired
		t.Fatalf("delete all: %v", del)
	}
	if status, _ := contentOf(t, a.api, chatID); status != 404 {
		t.Fatalf("content after delete-all: %d", status)
	}

	// Neither secret appears in what the API returned; the logs carry no
	// prompt or answer text.
	for _, s := range append(append([]string{}, a.api.bodies[setupA:]...), b.api.bodies[setupB:]...) {
		if strings.Contains(s, fakeSecret) || strings.Contains(s, "sk-ant-e2e-CONTENT") || strings.Contains(s, a.Key) {
			t.Fatalf("a response carries a secret: %s", s)
		}
	}
	for _, s := range []string{"PROMPT-zebra", "ANSWER-whole", "ANSWER-streamed", fakeSecret} {
		if in.logContains(s) {
			t.Errorf("the logs contain %q", s)
		}
	}
}
