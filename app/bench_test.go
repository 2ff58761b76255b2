package app

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/tenancy"
)

// benchStack is the whole gateway in process (SQLite, embedded analytics,
// events on) in front of a loopback fake OpenAI upstream.
type benchStack struct {
	heddle, upstream string
	key              string
	c                *components
	up               *dispatchtest.Upstream
	actor            tenancy.Actor
	keyPrefix        string
}

func newBenchStack(b *testing.B) *benchStack { return newStack(b, nil) }

// newStack wires the gateway with env on top of the defaults (SQLite in a
// temp dir, private upstreams allowed), with one org whose openai
// credential points at a fake upstream, and serves it on loopback.
func newStack(b testing.TB, env map[string]string) *benchStack {
	b.Helper()
	ctx := context.Background()
	up := dispatchtest.NewUpstream(b)
	vars := map[string]string{"HEDDLE_DATA_DIR": b.TempDir(), "HEDDLE_ALLOW_PRIVATE_UPSTREAMS": "true"}
	for k, v := range env {
		vars[k] = v
	}
	cfg, err := LoadConfig(func(k string) string { return vars[k] })
	if err != nil {
		b.Fatal(err)
	}
	c, err := wire(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.closeStores)
	u, org, err := c.accounts.Signup(ctx, tenancy.SignupInput{Email: "bench@example.com", Password: "bench password 123"})
	if err != nil {
		b.Fatal(err)
	}
	actor := tenancy.Actor{UserID: u.ID, OrgID: org.ID, Role: tenancy.RoleOwner}
	if _, err := c.creds.Add(ctx, actor, tenancy.CredentialInput{Provider: "openai", Secret: "sk-bench-secret-0000", BaseURL: up.URL + "/v1"}); err != nil {
		b.Fatal(err)
	}
	k, key, err := c.keys.Create(ctx, actor, tenancy.KeyInput{Name: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	srv := newServer(c)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = srv.Listener(ln) }()
	b.Cleanup(func() { _ = srv.Shutdown() })
	return &benchStack{heddle: "http://" + ln.Addr().String(), upstream: up.URL, key: key, c: c, up: up, actor: actor, keyPrefix: k.Prefix}
}

// load sends n requests at concurrency conc and returns sorted latencies and
// the wall time.
func load(b *testing.B, client *http.Client, url, key string, body []byte, n, conc int) ([]time.Duration, time.Duration) {
	lat := make([]time.Duration, n)
	var wg sync.WaitGroup
	next := make(chan int, n)
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	start := time.Now()
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Content-Type", "application/json")
				// Measure the dispatch path: identical requests would
				// otherwise be answered by the response cache.
				req.Header.Set("Cache-Control", "no-cache")
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				lat[i] = time.Since(t0)
				if resp.StatusCode != 200 {
					b.Errorf("status %d from %s", resp.StatusCode, url)
					return
				}
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return lat, wall
}

func pct(l []time.Duration, q float64) time.Duration { return l[int(q*float64(len(l)-1))] }

// BenchmarkGatewayAddedLatency measures what the whole gateway (auth, decode,
// plan, dispatch, encode, events and request records) adds to a loopback
// fake upstream, against calling the same upstream directly in the same run.
// Run: go test -run '^$' -bench GatewayAddedLatency -benchtime 3000x ./app/
func BenchmarkGatewayAddedLatency(b *testing.B) { benchAddedLatency(b, newBenchStack(b)) }

// BenchmarkGatewayAddedLatencyTraced is the same with OpenTelemetry on: every
// request sampled (server, routing and attempt spans) and batched over
// OTLP/HTTP to an in-process receiver that discards what it gets.
func BenchmarkGatewayAddedLatencyTraced(b *testing.B) {
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	b.Cleanup(rcv.Close)
	benchAddedLatency(b, newStack(b, map[string]string{"HEDDLE_OTLP_ENDPOINT": rcv.URL}))
}

func benchAddedLatency(b *testing.B, s *benchStack) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxIdleConns: 512}}
	for _, mode := range []string{"whole", "stream"} {
		for _, conc := range []int{1, 32} {
			b.Run(fmt.Sprintf("%s/c=%d", mode, conc), func(b *testing.B) {
				body := []byte(`{"model":"gpt-5-mini","messages":[{"role":"user","content":"Say hello in five words."}]` +
					map[string]string{"whole": `}`, "stream": `,"stream":true,"stream_options":{"include_usage":true}}`}[mode])
				n := max(b.N, 200)
				// Warm both paths (connections, caches) before measuring.
				load(b, client, s.upstream+"/v1/chat/completions", s.key, body, 100, conc)
				load(b, client, s.heddle+"/v1/chat/completions", s.key, body, 100, conc)
				b.ResetTimer()
				direct, dWall := load(b, client, s.upstream+"/v1/chat/completions", s.key, body, n, conc)
				via, vWall := load(b, client, s.heddle+"/v1/chat/completions", s.key, body, n, conc)
				b.StopTimer()
				added50 := pct(via, 0.5) - pct(direct, 0.5)
				added99 := pct(via, 0.99) - pct(direct, 0.99)
				b.ReportMetric(float64(added50.Microseconds())/1000, "added_p50_ms")
				b.ReportMetric(float64(added99.Microseconds())/1000, "added_p99_ms")
				b.ReportMetric(float64(pct(via, 0.5))/float64(pct(direct, 0.5)), "p50_ratio")
				b.ReportMetric(float64(pct(via, 0.99))/float64(pct(direct, 0.99)), "p99_ratio")
				b.ReportMetric((float64(n)/vWall.Seconds())/(float64(n)/dWall.Seconds()), "throughput_ratio")
				b.ReportMetric(float64(n)/vWall.Seconds(), "heddle_rps")
				b.ReportMetric(float64(n)/dWall.Seconds(), "direct_rps")
			})
		}
	}
}
