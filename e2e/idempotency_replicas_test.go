package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
)

// answer is a finished response as a client saw it.
type answer struct {
	status int
	header http.Header
	body   string
	err    error
}

// inferAsync sends body to path on base with key and an Idempotency-Key
// (the response cache bypassed) and delivers the answer on the channel.
func inferAsync(base, path, key, idemKey, body string) <-chan answer {
	ch := make(chan answer, 1)
	go func() {
		req, err := http.NewRequest("POST", base+path, strings.NewReader(body))
		if err != nil {
			ch <- answer{err: err}
			return
		}
		req.Header.Set("Content-Type", "application/json")
		if path == "/v1/messages" {
			req.Header.Set("x-api-key", key)
			req.Header.Set("anthropic-version", "2023-06-01")
		} else {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		req.Header.Set("Idempotency-Key", idemKey)
		req.Header.Set("Cache-Control", "no-cache")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			ch <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		ch <- answer{status: resp.StatusCode, header: resp.Header, body: string(raw), err: err}
	}()
	return ch
}

func infer(t *testing.T, base, path, key, idemKey, body string) answer {
	t.Helper()
	a := <-inferAsync(base, path, key, idemKey, body)
	if a.err != nil {
		t.Fatalf("POST %s%s: %v", base, path, a.err)
	}
	return a
}

// idemRedisKey is where SPEC §2's scoping puts an Idempotency-Key in Redis:
// one key per organisation, API key and Idempotency-Key.
func idemRedisKey(a *tenant, idemKey string) string {
	sum := sha256.Sum256([]byte(a.OrgID + "\x00" + a.KeyID + "\x00" + idemKey))
	return "heddle:idem:" + hex.EncodeToString(sum[:])
}

// TestIdempotencyAcrossReplicas: two replicas share Postgres and Redis and
// one fake upstream that counts calls and holds them. A non-streaming
// duplicate sent to the second replica while the first replica's call is in
// flight joins it (one upstream call, the same answer), a later duplicate
// within the window gets the stored answer, and a streaming duplicate on the
// other replica gets 409 dispatch.duplicate_in_flight in the caller's wire
// format. The state lives under heddle:idem: in Redis.
func TestIdempotencyAcrossReplicas(t *testing.T) {
	redisURL := envOr("HEDDLE_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
	rdb := dialRedis(t, redisURL)
	mon := monitorRedis(t, redisURL, "heddle:idem:")
	fake := dispatchtest.NewUpstream(t)
	up := newGatedUpstream(t, fake)
	pg := freshPostgres(t)
	r1 := startHeddle(t, map[string]string{"HEDDLE_DATABASE_URL": pg, "HEDDLE_REDIS_URL": redisURL})
	r2 := startHeddle(t, map[string]string{"HEDDLE_DATABASE_URL": pg, "HEDDLE_REDIS_URL": redisURL,
		"HEDDLE_MASTER_KEYSET_FILE": r1.DataDir + "/master-keyset.json"})
	a := signUp(t, r1.URL, "idem-replicas@example.com", "openai", fakeSecret, up.URL+"/v1")
	ctx := context.Background()

	// Concurrent non-streaming duplicates on two replicas: one upstream call.
	const chatBody = `{"model":"gpt-5-mini","messages":[{"role":"user","content":"charge order 7"}]}`
	fake.Script("gpt-5-mini", dispatchtest.OK("order 7 charged once"))
	rkey := idemRedisKey(a, "order-7")
	up.hold()
	first := inferAsync(r1.URL, "/v1/chat/completions", a.Key, "order-7", chatBody)
	up.arrived(t)
	if state, err := rdb.HGet(ctx, rkey, "state").Result(); err != nil || state != "inflight" {
		t.Fatalf("redis %s state = %q, %v while the first call is upstream; want inflight", rkey, state, err)
	}
	claims := claimCall(rkey)
	mon.waitCount(t, claims, 1)
	second := inferAsync(r2.URL, "/v1/chat/completions", a.Key, "order-7", chatBody)
	// The second replica found the claim in flight (a second claim attempt
	// on the key) and waits on it; only then does the upstream answer.
	mon.waitCount(t, claims, 2)
	up.release()
	a1, a2 := <-first, <-second
	for i, got := range []answer{a1, a2} {
		if got.err != nil || got.status != 200 || !strings.Contains(got.body, "order 7 charged once") {
			t.Fatalf("duplicate %d: %d %v %s", i+1, got.status, got.err, got.body)
		}
	}
	if a1.body != a2.body {
		t.Errorf("the joined duplicate got another answer:\nfirst  %s\nsecond %s", a1.body, a2.body)
	}
	if n := up.calls.Load(); n != 1 {
		t.Fatalf("concurrent duplicates on two replicas reached the upstream %d times, want 1", n)
	}
	if state, err := rdb.HGet(ctx, rkey, "state").Result(); err != nil || state != "done" {
		t.Errorf("redis %s state = %q, %v after the answer; want done", rkey, state, err)
	}
	if ttl, err := rdb.PTTL(ctx, rkey).Result(); err != nil || ttl <= 0 || ttl.Seconds() > 60 {
		t.Errorf("redis %s ttl = %v, %v; want the 60s window", rkey, ttl, err)
	}

	// A later duplicate within the window, on either replica: the stored answer.
	for _, in := range []*instance{r2, r1} {
		got := infer(t, in.URL, "/v1/chat/completions", a.Key, "order-7", chatBody)
		if got.status != 200 || got.body != a1.body {
			t.Errorf("later duplicate on %s: %d %s; want the stored answer %s", in.URL, got.status, got.body, a1.body)
		}
	}
	if n := up.calls.Load(); n != 1 {
		t.Fatalf("later duplicates reached the upstream: %d calls, want 1", n)
	}

	// A streaming duplicate on the other replica while the first is in
	// flight: 409 in the caller's format; the first stream completes.
	for i, tc := range []struct {
		path, body string
		anthropic  bool
	}{
		{"/v1/chat/completions", `{"model":"gpt-5-mini","stream":true,"messages":[{"role":"user","content":"stream once"}]}`, false},
		{"/v1/messages", `{"model":"gpt-5-mini","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"stream once"}]}`, true},
	} {
		idemKey := "stream-" + itoa(i)
		up.hold()
		owner := inferAsync(r1.URL, tc.path, a.Key, idemKey, tc.body)
		up.arrived(t)
		if s, err := rdb.HGet(ctx, idemRedisKey(a, idemKey), "stream").Result(); err != nil || s != "1" {
			t.Fatalf("%s: redis stream flag = %q, %v; want 1", tc.path, s, err)
		}
		dup := infer(t, r2.URL, tc.path, a.Key, idemKey, tc.body)
		up.release()
		wantDuplicate409(t, tc.path, dup, tc.anthropic)
		got := <-owner
		if got.err != nil || got.status != 200 {
			t.Fatalf("%s: the first stream: %d %v %s", tc.path, got.status, got.err, got.body)
		}
		text, done := streamedText(t, got.body)
		if tc.anthropic {
			text, done = anthropicStreamText(t, got.body), strings.Contains(got.body, "message_stop")
		}
		if text != "Hello from gpt-5-mini" || !done {
			t.Errorf("%s: the first stream: text %q, complete %v: %s", tc.path, text, done, got.body)
		}
		if n := up.calls.Load(); n != int64(2+i) {
			t.Errorf("%s: upstream calls = %d, want %d", tc.path, n, 2+i)
		}
	}
	keys, err := rdb.Keys(ctx, "heddle:idem:*").Result()
	if err != nil || !containsAll(keys, rkey) {
		t.Errorf("heddle:idem:* keys = %v, %v; want %s among them", keys, err, rkey)
	}
}

// wantDuplicate409 checks a streaming duplicate's refusal: 409 with
// x-heddle-error dispatch.duplicate_in_flight in OpenAI's or Anthropic's
// error shape.
func wantDuplicate409(t *testing.T, what string, got answer, anthropic bool) {
	t.Helper()
	if got.status != 409 || got.header.Get("x-heddle-error") != "dispatch.duplicate_in_flight" {
		t.Fatalf("%s: streaming duplicate: %d %q %s", what, got.status, got.header.Get("x-heddle-error"), got.body)
	}
	var shape struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(got.body), &shape); err != nil {
		t.Fatalf("%s: 409 body is not JSON: %s", what, got.body)
	}
	if shape.Error.Type != "invalid_request_error" || !strings.Contains(shape.Error.Message, "Idempotency-Key") {
		t.Errorf("%s: 409 body = %s", what, got.body)
	}
	if anthropic != (shape.Type == "error") {
		t.Errorf("%s: not the caller's error shape (anthropic %v): %s", what, anthropic, got.body)
	}
}

func containsAll(have []string, want ...string) bool {
	set := make(map[string]bool, len(have))
	for _, h := range have {
		set[h] = true
	}
	for _, w := range want {
		if !set[w] {
			return false
		}
	}
	return true
}
