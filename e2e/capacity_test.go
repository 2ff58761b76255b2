package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/internal/testwait"
)

// TestBudgetsUnderAgentLoad: two replicas on one Postgres serve 8
// organisations x 125 concurrent streams (about 1 s each, on one
// credential per organisation, every organisation with a hard daily
// budget, so every request is checked): none is refused, in particular
// none with 503 billing.unavailable, since budget checks read the
// replica's spend counters, not the database. Then a hard budget spent
// through replica 1 refuses on replica 1 at once and on replica 2 once it
// has read the shared spend back (documented: within two
// HEDDLE_SPEND_SYNC_INTERVAL, 2 s by default; the time taken is logged).
func TestBudgetsUnderAgentLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("1000 concurrent streams")
	}
	up := newPacedUpstream(t, 11, 100*time.Millisecond)
	pg := freshPostgres(t)
	r1 := startHeddle(t, map[string]string{"HEDDLE_DATABASE_URL": pg})
	r2 := startHeddle(t, map[string]string{"HEDDLE_DATABASE_URL": pg,
		"HEDDLE_MASTER_KEYSET_FILE":  r1.DataDir + "/master-keyset.json",
		"HEDDLE_SESSION_SECRET_FILE": r1.DataDir + "/session-secret"})

	const orgs, streams = 8, 125
	keys := make([]string, orgs)
	for i := range keys {
		tn := signUp(t, r1.URL, fmt.Sprintf("agents-%d@example.com", i), "openai", fakeSecret, up.URL+"/v1")
		tn.api.do("PUT", "/api/v1/budgets", map[string]any{"daily_limit_micros": 1_000_000_000, "daily_mode": "hard"}, 200, nil)
		keys[i] = tn.Key
	}
	hc := newHTTPClient()
	var mu sync.Mutex
	codes := map[string]int{}
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for o := range orgs {
		for s := range streams {
			base := r1.URL
			if s%2 == 1 {
				base = r2.URL
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-gate
				_, _, err := loadClient{hc: hc, base: base, key: keys[o]}.do(true, o*1000+s)
				code := "ok"
				if err != nil {
					code = err.Error()
				}
				mu.Lock()
				codes[code]++
				mu.Unlock()
			}()
		}
	}
	start := time.Now()
	close(gate)
	wg.Wait()
	t.Logf("%d streams in %v on two replicas: %v", orgs*streams, time.Since(start).Round(10*time.Millisecond), codes)
	if codes["ok"] != orgs*streams {
		t.Fatalf("outcomes %v, want all %d served", codes, orgs*streams)
	}

	// A hard budget spent through replica 1.
	victim := signUp(t, r1.URL, "spent@example.com", "openai", fakeSecret, up.URL+"/v1")
	victim.api.do("PUT", "/api/v1/budgets", map[string]any{"daily_limit_micros": 1, "daily_mode": "hard"}, 200, nil)
	// A probe is admitted or refused by the budget; admitted, it fails
	// upstream and costs nothing, so replica 2's own spend stays 0 and its
	// refusal can only come from replica 1's spend read back.
	probe := func(in *instance, i int) int {
		resp, b := chat(t, in.URL, victim.Key, `{"model":"gpt-5-mini","messages":[{"role":"user","content":"upstream-fails `+itoa(i)+`"}]}`)
		switch resp.StatusCode {
		case 402:
			wantOrgBudget402(t, in.URL, resp.StatusCode, resp.Header.Get("x-heddle-error"), b, false)
		case 502, 503:
			if h := resp.Header.Get("x-heddle-error"); h == "billing.unavailable" {
				t.Fatalf("%s: %d %s", in.URL, resp.StatusCode, b)
			}
		default:
			t.Fatalf("%s: probe %d %s", in.URL, resp.StatusCode, b)
		}
		return resp.StatusCode
	}
	if c := probe(r2, 0); c == 402 {
		t.Fatal("replica 2 refused before anything was spent")
	}
	if resp, b := chat(t, r1.URL, victim.Key, chatBody(1000)); resp.StatusCode != 200 {
		t.Fatalf("first request under an unspent budget: %d %s", resp.StatusCode, b)
	}
	spent := time.Now()
	if c := probe(r1, 1); c != 402 {
		t.Fatalf("replica 1 admitted a request past the budget it recorded: %d", c)
	}
	i := 2
	testwait.Until(t, 30*time.Second, "replica 2 refusing the spent budget", func() bool {
		i++
		return probe(r2, i) == 402
	})
	t.Logf("replica 2 refused the budget spent through replica 1 %v after the spend (bound: two sync intervals, 2s)",
		time.Since(spent).Round(10*time.Millisecond))
}

// TestOrgConcurrencyCap: an organisation's own cap (max_concurrency on PUT
// /api/v1/budgets) binds in the binary: with two streams in flight and a
// cap of 2, a third request waits HEDDLE_CAP_WAIT and gets 503
// dispatch.overloaded in the caller's format, counted in
// heddle_cap_wait_seconds and heddle_refusals_total; another organisation on
// the same upstream is not held back, and the slots free up afterwards.
func TestOrgConcurrencyCap(t *testing.T) {
	up := newPacedUpstream(t, 31, 100*time.Millisecond) // about 3 s a stream
	in := startHeddle(t, map[string]string{"HEDDLE_CAP_WAIT": "300ms"})
	capped := signUp(t, in.URL, "capped@example.com", "openai", fakeSecret, up.URL+"/v1")
	other := signUp(t, in.URL, "uncapped@example.com", "openai", fakeSecret, up.URL+"/v1")
	var view struct {
		Org struct {
			MaxConcurrency int `json:"max_concurrency"`
		} `json:"org"`
	}
	capped.api.do("PUT", "/api/v1/budgets", map[string]any{"max_concurrency": 2}, 200, &view)
	if view.Org.MaxConcurrency != 2 {
		t.Fatalf("max_concurrency after PUT = %d", view.Org.MaxConcurrency)
	}

	// Two streams hold the organisation's slots until they end.
	hc := newHTTPClient()
	started := make(chan struct{}, 2)
	ended := make(chan error, 2)
	for i := range 2 {
		go func() {
			req, _ := http.NewRequest("POST", in.URL+"/v1/chat/completions",
				strings.NewReader(`{"model":"gpt-5-mini","stream":true,"messages":[{"role":"user","content":"hold `+itoa(i)+`"}]}`))
			req.Header.Set("Authorization", "Bearer "+capped.Key)
			req.Header.Set("Cache-Control", "no-cache")
			resp, err := hc.Do(req)
			if err != nil {
				ended <- err
				return
			}
			defer resp.Body.Close()
			if _, err := bufio.NewReader(resp.Body).Peek(1); err != nil || resp.StatusCode != 200 {
				ended <- fmt.Errorf("hold stream: %d %v", resp.StatusCode, err)
				return
			}
			started <- struct{}{}
			_, err = io.Copy(io.Discard, resp.Body)
			ended <- err
		}()
	}
	for range 2 {
		select {
		case <-started:
		case err := <-ended:
			t.Fatal(err)
		}
	}
	resp, b := chat(t, in.URL, capped.Key, chatBody(1))
	if resp.StatusCode != 503 || resp.Header.Get("x-heddle-error") != "dispatch.overloaded" || !strings.Contains(b, `"error"`) {
		t.Fatalf("third request over the cap: %d %q %s", resp.StatusCode, resp.Header.Get("x-heddle-error"), b)
	}
	if resp, b := chat(t, in.URL, other.Key, chatBody(2)); resp.StatusCode != 200 {
		t.Fatalf("another organisation while the first is capped: %d %s", resp.StatusCode, b)
	}
	m := scrape(t, in.URL)
	if n, _ := find(m, "heddle_cap_wait_seconds_count", map[string]string{"scope": "org", "outcome": "overloaded"}); n != 1 {
		t.Errorf("heddle_cap_wait_seconds_count{scope=org,outcome=overloaded} = %v, want 1", n)
	}
	if n, _ := find(m, "heddle_refusals_total", map[string]string{"reason": "org_cap"}); n != 1 {
		t.Errorf("heddle_refusals_total{reason=org_cap} = %v, want 1", n)
	}
	for range 2 {
		if err := <-ended; err != nil {
			t.Fatal(err)
		}
	}
	if resp, b := chat(t, in.URL, capped.Key, chatBody(3)); resp.StatusCode != 200 {
		t.Fatalf("after the streams ended: %d %s", resp.StatusCode, b)
	}
}
