package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// roundRobin is the test's load balancer: it sends each request to the next
// replica, sets X-Real-IP as nginx does in compose.yaml and flushes streams
// as they come.
func roundRobin(t *testing.T, replicas ...*instance) *httptest.Server {
	t.Helper()
	var next atomic.Uint64
	proxies := make([]*httputil.ReverseProxy, len(replicas))
	for i, in := range replicas {
		u, _ := url.Parse(in.URL)
		p := httputil.NewSingleHostReverseProxy(u)
		p.FlushInterval = -1
		proxies[i] = p
	}
	lb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set("X-Real-IP", "203.0.113.7")
		proxies[next.Add(1)%uint64(len(proxies))].ServeHTTP(w, r)
	}))
	t.Cleanup(lb.Close)
	return lb
}

// TestComposeTopologyNative runs compose.yaml's topology natively: two
// replicas behind a round-robin balancer that sets X-Real-IP, sharing
// PostgreSQL, ClickHouse and Redis, with their secrets as files (not in
// production mode only because that refuses the loopback fake upstream,
// and the balancer is on loopback too). Both report every
// store ok, requests through the balancer reach both replicas, every
// answered request (stream or not) is in ClickHouse with its attempt, and
// the admin API's request list and detail read the same rows from either
// replica (and not another organisation's).
func TestComposeTopologyNative(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	pg := freshPostgres(t)
	chURL, ch := freshClickHouse(t)
	redisURL := envOr("HEDDLE_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
	secrets := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	keyset := filepath.Join(secrets, "master-keyset.json")
	if out, err := runCLI(ctx, t, nil, "vault", "init", keyset); err != nil {
		t.Fatalf("vault init: %v\n%s", err, out)
	}
	put := func(name, v string) string {
		p := filepath.Join(secrets, name)
		if err := os.WriteFile(p, []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	env := map[string]string{
		"HEDDLE_DATABASE_URL_FILE":   put("database-url", pg),
		"HEDDLE_CLICKHOUSE_URL_FILE": put("clickhouse-url", chURL),
		"HEDDLE_REDIS_URL":           redisURL,
		"HEDDLE_MASTER_KEYSET_FILE":  keyset,
		"HEDDLE_SESSION_SECRET_FILE": put("session-secret", "topology-session-secret-0123456789abcdef"),
		"HEDDLE_TRUSTED_PROXIES":     "127.0.0.1/32",
		"HEDDLE_PROXY_HEADER":        "X-Real-IP",
	}
	r1 := startHeddle(t, env)
	r2 := startHeddle(t, env)
	for _, in := range []*instance{r1, r2} {
		testwait.Until(t, 30*time.Second, "replica ready with every store ok", func() bool {
			status, r := getReadyz(t, in.URL)
			return status == 200 && r.Status == "ok" && r.Checks["database"] == "ok" &&
				r.Checks["clickhouse"] == "ok" && r.Checks["redis"] == "ok"
		})
	}
	lb := roundRobin(t, r1, r2)
	a := signUp(t, lb.URL, "topology@example.com", "openai", fakeSecret, up.URL+"/v1")
	b := signUp(t, lb.URL, "topology-other@example.com", "openai", fakeSecret, up.URL+"/v1")

	const n = 20
	ids := map[string]bool{}
	for i := range n {
		body := fmt.Sprintf(`{"model":"gpt-5-mini","messages":[{"role":"user","content":"topology %d"}]%s}`, i,
			map[bool]string{true: `,"stream":true`, false: ``}[i%2 == 1])
		resp, got := chat(t, lb.URL, a.Key, body)
		if resp.StatusCode != 200 || !strings.Contains(got, "Hello") {
			t.Fatalf("request %d through the balancer: %d %s", i, resp.StatusCode, got)
		}
		ids[resp.Header.Get("x-heddle-request-id")] = true
	}
	resp, _ := chat(t, lb.URL, b.Key, `{"model":"gpt-5-mini","messages":[{"role":"user","content":"other org"}]}`)
	otherID := resp.Header.Get("x-heddle-request-id")
	for _, in := range []*instance{r1, r2} {
		if metricValue(t, in.URL, "heddle_sink_journaled_total") <= 0 {
			t.Errorf("replica %s served none of the requests", in.URL)
		}
	}

	db := chURL[strings.LastIndex(chURL, "/")+1:]
	testwait.Until(t, 30*time.Second, "every answered request in ClickHouse with its attempt", func() bool {
		var reqs, atts uint64
		err := ch.QueryRow(context.Background(), "SELECT count() FROM "+db+".requests FINAL WHERE org_id = ?", a.OrgID).Scan(&reqs)
		if err == nil {
			err = ch.QueryRow(context.Background(), "SELECT count() FROM "+db+".attempts FINAL WHERE org_id = ?", a.OrgID).Scan(&atts)
		}
		return err == nil && reqs == n && atts == n
	})

	// The admin API, through the balancer (each call may hit either replica).
	var page struct {
		Requests []struct {
			ID     string `json:"id"`
			Status int    `json:"status"`
			Stream bool   `json:"stream"`
			Cost   int64  `json:"cost_micros"`
		} `json:"requests"`
		Next string `json:"next_cursor"`
	}
	var listed []string
	path := "/api/v1/requests?limit=8"
	for {
		a.api.base = lb.URL
		a.api.do("GET", path, nil, 200, &page)
		for _, r := range page.Requests {
			if !ids[r.ID] || r.Status != 200 || r.Cost <= 0 {
				t.Errorf("listed request %+v", r)
			}
			listed = append(listed, r.ID)
		}
		if page.Next == "" {
			break
		}
		path = "/api/v1/requests?limit=8&cursor=" + url.QueryEscape(page.Next)
		page.Requests, page.Next = nil, ""
	}
	if len(listed) != n {
		t.Errorf("listed %d requests over pages of 8, want %d", len(listed), n)
	}
	var detail struct {
		Request  *struct{ ID string } `json:"request"`
		Attempts []struct {
			Outcome string `json:"outcome"`
		} `json:"attempts"`
	}
	a.api.do("GET", "/api/v1/requests/"+listed[0], nil, 200, &detail)
	if detail.Request == nil || detail.Request.ID != listed[0] || len(detail.Attempts) != 1 || detail.Attempts[0].Outcome != "served" {
		t.Errorf("request detail %+v", detail)
	}
	var apiErr struct {
		Error struct{ Code string } `json:"error"`
	}
	a.api.do("GET", "/api/v1/requests/"+otherID, nil, 404, &apiErr)
	if apiErr.Error.Code != "analytics.not_found" {
		t.Errorf("another organisation's request: %+v", apiErr)
	}
	out, _ := json.Marshal(page)
	t.Logf("GET /api/v1/requests (last page): %s", out)
}
