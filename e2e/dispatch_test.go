package e2e

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
)

// TestFailoverAndIdempotency drives the dispatch boundary through the
// binary: a failing first binding fails over to the model's second binding
// (x-heddle-fallback: 1), exhausted attempts answer 502
// dispatch.attempts_exhausted, and duplicate Idempotency-Key requests reach
// the upstream once.
func TestFailoverAndIdempotency(t *testing.T) {
	for name, env := range backends() {
		t.Run(name, func(t *testing.T) { testFailoverAndIdempotency(t, env) })
	}
}

func testFailoverAndIdempotency(t *testing.T, env map[string]string) {
	primary := dispatchtest.NewUpstream(t)
	secondary := dispatchtest.NewUpstream(t)
	in := startHeddle(t, env)
	a := signUp(t, in.URL, "ops@example.com", "openai", fakeSecret, primary.URL+"/v1")
	a.api.do("POST", "/api/v1/credentials", map[string]any{
		"provider": "openrouter", "label": "backup", "secret": "sk-or-backup-000000", "base_url": secondary.URL + "/v1",
	}, 201, nil)
	body := `{"model":"gpt-5-mini","messages":[{"role":"user","content":"hi"}]}`

	// The credential test sends a one-token probe through dispatch.
	var creds struct {
		Credentials []struct {
			ID       string `json:"id"`
			Provider string `json:"provider"`
		} `json:"credentials"`
	}
	a.api.do("GET", "/api/v1/credentials", nil, 200, &creds)
	for _, c := range creds.Credentials {
		if c.Provider == "openai" {
			a.api.do("POST", "/api/v1/credentials/"+c.ID+"/test", nil, 200, nil)
			primary.Script("gpt-5-nano", dispatchtest.Status(401))
			a.api.do("POST", "/api/v1/credentials/"+c.ID+"/test", nil, 422, nil)
		}
	}
	if n := len(primary.Requests()); n != 2 {
		t.Fatalf("credential tests reached the upstream %d times, want 2", n)
	}
	if m := primary.Models(); m[0] != "gpt-5-nano" {
		t.Errorf("probe model = %v, want the cheapest openai model", m)
	}

	// gpt-5-mini binds openai first, then openrouter (upstream openai/gpt-5-mini).
	primary.Script("gpt-5-mini", dispatchtest.Status(503))
	secondary.Script("openai/gpt-5-mini", dispatchtest.OK("served by the backup"))
	resp, got := chat(t, in.URL, a.Key, body)
	if resp.StatusCode != 200 || !strings.Contains(got, "served by the backup") {
		t.Fatalf("failover: %d %s", resp.StatusCode, got)
	}
	if resp.Header.Get("x-heddle-fallback") != "1" || resp.Header.Get("x-heddle-provider") != "openrouter" {
		t.Errorf("failover headers: fallback=%q provider=%q", resp.Header.Get("x-heddle-fallback"), resp.Header.Get("x-heddle-provider"))
	}

	// Every attempt fails: 502 with the retry-protocol header.
	// A two-target plan fails over once and makes no same-target retries.
	primary.Script("gpt-5-mini", dispatchtest.Status(500))
	secondary.Script("openai/gpt-5-mini", dispatchtest.Status(500))
	// A different prompt: the first answer is in the response cache.
	resp, got = chat(t, in.URL, a.Key, `{"model":"gpt-5-mini","messages":[{"role":"user","content":"fail please"}]}`)
	if resp.StatusCode != 502 || resp.Header.Get("x-heddle-error") != "dispatch.attempts_exhausted" {
		t.Errorf("exhausted: %d %q %s", resp.StatusCode, resp.Header.Get("x-heddle-error"), got)
	}
	if primary.Pending() != 0 || secondary.Pending() != 0 {
		t.Fatalf("unplayed steps: primary %d secondary %d", primary.Pending(), secondary.Pending())
	}

	// Idempotency: concurrent duplicates and a later repeat reach the upstream once.
	primary.Script("gpt-5-mini", dispatchtest.SlowFirstByte(300_000_000))
	body = `{"model":"gpt-5-mini","messages":[{"role":"user","content":"charge order 42"}]}`
	before := len(primary.Requests())
	var wg sync.WaitGroup
	bodies := make([]string, 3)
	codes := make([]int, 3)
	for i := range bodies {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			req, _ := http.NewRequest("POST", in.URL+"/v1/chat/completions", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+a.Key)
			req.Header.Set("Idempotency-Key", "order-42")
			req.Header.Set("Cache-Control", "no-cache") // test idempotency, not the response cache
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			b := new(strings.Builder)
			_, _ = io_copy(b, resp)
			bodies[i], codes[i] = b.String(), resp.StatusCode
		}(i)
	}
	wg.Wait()
	req, _ := http.NewRequest("POST", in.URL+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+a.Key)
	req.Header.Set("Idempotency-Key", "order-42")
	req.Header.Set("Cache-Control", "no-cache")
	r4, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b4 := new(strings.Builder)
	_, _ = io_copy(b4, r4)
	r4.Body.Close()
	if n := len(primary.Requests()) - before; n != 1 {
		t.Errorf("duplicates reached the upstream %d times, want 1", n)
	}
	for i, b := range append(bodies, b4.String()) {
		code := r4.StatusCode
		if i < 3 {
			code = codes[i]
		}
		if code != 200 || !strings.Contains(b, "Hello from gpt-5-mini") {
			t.Errorf("duplicate %d: %d %s", i, code, b)
		}
	}
}
