package e2e

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// TestRateLimitsAcrossReplicas: two replicas share Postgres (and Redis in
// the second case). Replica 2 serves a key once (its counters are then in
// its memory), replica 1 spends the rest of the key's RPM and syncs; replica
// 2 then refuses within the documented bound (its next read-back, waited on
// as a condition) with 429 tenancy.rate_limited, having admitted only what
// it served before that read-back (far less than its own allowance), and
// replica 1 refuses too. With Redis the counters
// are added in batches (far fewer INCRBYs than requests, summing exactly to
// the requests admitted), not one call per request.
func TestRateLimitsAcrossReplicas(t *testing.T) {
	for _, name := range []string{"postgres", "postgres+redis"} {
		t.Run(name, func(t *testing.T) {
			env := map[string]string{"HEDDLE_DATABASE_URL": freshPostgres(t)}
			var mon *redisMonitor
			if name == "postgres+redis" {
				redisURL := envOr("HEDDLE_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
				env["HEDDLE_REDIS_URL"] = redisURL
				mon = monitorRedis(t, redisURL, "heddle:rl:")
			}
			up := dispatchtest.NewUpstream(t)
			r1 := startHeddle(t, env)
			env2 := map[string]string{"HEDDLE_MASTER_KEYSET_FILE": r1.DataDir + "/master-keyset.json"}
			for k, v := range env {
				env2[k] = v
			}
			r2 := startHeddle(t, env2)
			a := signUp(t, r1.URL, "rl-replicas-"+strings.ReplaceAll(name, "+", "-")+"@example.com", "openai", fakeSecret, up.URL+"/v1")
			const rpm = 40
			var k struct {
				Key struct {
					ID string `json:"id"`
				} `json:"key"`
				Secret string `json:"secret"`
			}
			a.api.do("POST", "/api/v1/keys", map[string]any{"name": "shared", "scopes": []string{"inference"}, "rpm": rpm}, 201, &k)
			body := `{"model":"gpt-5-mini","messages":[{"role":"user","content":"count me"}]}`
			// Wait for the top of a minute window to be far enough away
			// that the whole test runs inside one window.
			testwait.Until(t, time.Minute, "the first 20 s of a minute window", func() bool { return time.Now().Second() <= 20 })
			window := time.Now().Truncate(time.Minute)
			// Replica 2 serves first, so it holds the window's counters in
			// memory when replica 1 spends the rest of the limit.
			if resp, b := chat(t, r2.URL, k.Secret, body); resp.StatusCode != 200 {
				t.Fatalf("replica 2 first request: %d %s", resp.StatusCode, b)
			}
			admitted := 1
			for i := range rpm - 1 {
				resp, b := chat(t, r1.URL, k.Secret, body)
				if resp.StatusCode != 200 {
					t.Fatalf("replica 1 request %d of %d: %d %s", i+1, rpm-1, resp.StatusCode, b)
				}
				admitted++
			}
			spent := time.Now()
			testwait.Until(t, 20*time.Second, "replica 1 synced after its last request", func() bool {
				age := metricValue(t, r1.URL, "heddle_ratelimit_sync_age_seconds")
				return age >= 0 && age < time.Since(spent).Seconds()
			})
			// Replica 2 may admit what it serves before its next read-back
			// (the bound), never its whole limit again.
			onR2 := 0
			testwait.Until(t, 20*time.Second, "replica 2 refuses the key spent through replica 1", func() bool {
				time.Sleep(50 * time.Millisecond) // pace the requests (about 20/s), so the extra admitted before a read-back stays small
				resp, b := chat(t, r2.URL, k.Secret, body)
				switch resp.StatusCode {
				case 200:
					onR2++
					return false
				case 429:
					if resp.Header.Get("x-heddle-error") != "tenancy.rate_limited" || resp.Header.Get("Retry-After") == "" {
						t.Fatalf("replica 2 refusal: %d %q %q %s", resp.StatusCode, resp.Header.Get("x-heddle-error"), resp.Header.Get("Retry-After"), b)
					}
					return true
				}
				t.Fatalf("replica 2: %d %s", resp.StatusCode, b)
				return false
			})
			// Replica 1 learns of replica 2's extra requests at its next
			// read-back too.
			onR1 := 0
			testwait.Until(t, 20*time.Second, "replica 1 refuses", func() bool {
				time.Sleep(50 * time.Millisecond)
				resp, b := chat(t, r1.URL, k.Secret, body)
				if resp.StatusCode != 200 && resp.StatusCode != 429 {
					t.Fatalf("replica 1: %d %s", resp.StatusCode, b)
				}
				onR1 += map[bool]int{true: 1}[resp.StatusCode == 200]
				return resp.StatusCode == 429
			})
			if onR1 > onR2 {
				t.Errorf("replica 1 admitted %d past the limit, more than the %d replica 2 added after it", onR1, onR2)
			}
			admitted += onR1
			t.Logf("%s: %d admitted until replica 2 read back the shared count, then %d more on replica 2 and %d on replica 1 (rpm %d)", name, admitted-onR1, onR2, onR1, rpm)
			if !time.Now().Truncate(time.Minute).Equal(window) {
				t.Skip("the minute window turned during the test (it starts over): not a refusal bound check")
			}
			if onR2 >= rpm-1 {
				t.Errorf("replica 2 admitted %d more after replica 1 synced the limit of %d: it never read the shared count", onR2, rpm)
			}
			for i, r := range []*instance{r1, r2} {
				if age := metricValue(t, r.URL, "heddle_ratelimit_sync_age_seconds"); age < 0 || age > 30 {
					t.Errorf("replica %d heddle_ratelimit_sync_age_seconds = %v", i+1, age)
				}
			}
			if mon == nil {
				return
			}
			incr := regexp.MustCompile(`(?i)"incrby" "heddle:rl:r:` + regexp.QuoteMeta(k.Key.ID) + `:[0-9]+" "([0-9]+)"`)
			testwait.Until(t, 20*time.Second, "every admitted request added to Redis", func() bool {
				sum, _ := mon.sum(incr)
				return sum == admitted+onR2
			})
			if k.Key.ID == "" {
				t.Fatal("the created key has no id")
			}
			sum, calls := mon.sum(incr)
			t.Logf("%d INCRBYs added the %d admitted requests", calls, sum)
			if calls*2 > admitted+onR2 {
				t.Errorf("%d INCRBYs for %d admitted requests (sum %d): counts are not batched", calls, admitted+onR2, sum)
			}
		})
	}
}

// sum adds the first group of every recorded command matching re, and
// counts them.
func (m *redisMonitor) sum(re *regexp.Regexp) (sum, n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, l := range m.lines {
		if g := re.FindStringSubmatch(l); g != nil {
			v, _ := strconv.Atoi(g[1])
			sum += v
			n++
		}
	}
	return sum, n
}
