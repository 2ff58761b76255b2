package dispatch_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/dispatch/provider/openai"
	"github.com/heddle-gw/heddle/llm"
)

// countSink counts events; it sits behind AsyncSink so events are on.
type countSink struct{ n atomic.Int64 }

func (s *countSink) RecordAttempt(dispatch.AttemptEvent) { s.n.Add(1) }

// discardWriter is a client that takes every event.
type discardWriter struct{}

func (discardWriter) Write(llm.Event) error { return nil }
func (discardWriter) Flush() error          { return nil }

func benchClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns, t.MaxIdleConnsPerHost = 256, 256
	return &http.Client{Transport: t}
}

// BenchmarkAddedLatency measures what the executor adds to an upstream call:
// for each concurrency (1, 32) and mode (whole, streamed), b.N requests go
// straight to a loopback fake upstream and b.N through Executor.Run (explicit
// single-target plan, real adapter and codec, events on through AsyncSink),
// in alternating rounds of the same run. It reports p50 and p99 latency of
// both, the added latency, and throughput of both, with their ratios. Run it
// with a fixed count: go test -run '^$' -bench AddedLatency -benchtime 2000x ./dispatch/
func BenchmarkAddedLatency(b *testing.B) {
	for _, c := range []int{1, 32} {
		for _, stream := range []bool{false, true} {
			b.Run(fmt.Sprintf("c=%d/stream=%v", c, stream), func(b *testing.B) { benchAdded(b, c, stream) })
		}
	}
}

func benchAdded(b *testing.B, conc int, stream bool) {
	up := dispatchtest.NewUpstream(b)
	sink := &countSink{}
	q := dispatch.AsyncSink(sink, 8192)
	defer q.Close(context.Background())
	exec := dispatch.NewExecutor(dispatch.Config{OrgConcurrency: 1024, BindingConcurrency: 1024}, dispatch.Deps{
		Providers: map[string]dispatch.Provider{"openai": openai.New(openai.Config{}, benchClient())},
		Credentials: dispatchtest.NewCredentials(map[string]dispatch.Credential{
			"openai": {ID: "cred-1", Secret: "sk-bench"}}),
		Codecs: codecs(), Sink: q,
	})
	plan := dispatch.Plan{Targets: []dispatch.Target{{Model: "model-up", Provider: "openai", Upstream: "up",
		Format: llm.FormatChat, BaseURL: up.URL + "/v1"}}}
	meta := dispatch.Meta{OrgID: "org-1", KeyID: "key-1", RequestID: "req", OperationID: "req/0"}
	op := chatOp(stream)
	directBody := bytes.Replace(op.RawBody, []byte(`"requested"`), []byte(`"up"`), 1)
	hc := benchClient()

	viaDirect := func() error {
		resp, err := hc.Post(up.URL+"/v1/chat/completions", "application/json", bytes.NewReader(directBody))
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return err
	}
	viaHeddle := func() error {
		var out dispatch.StreamWriter
		if stream {
			out = discardWriter{}
		}
		_, err := exec.Run(context.Background(), meta, plan, op, out)
		return err
	}

	n := max(b.N, 50)
	rounds := 4
	var dLat, hLat []time.Duration
	var dWall, hWall time.Duration
	for _, f := range []func() error{viaDirect, viaHeddle} { // warm up connections and caches
		if _, _, err := load(f, conc, 2*conc); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for r := range rounds {
		per := n / rounds
		if r == rounds-1 {
			per = n - per*(rounds-1)
		}
		lat, wall, err := load(viaDirect, conc, per)
		if err != nil {
			b.Fatal(err)
		}
		dLat, dWall = append(dLat, lat...), dWall+wall
		lat, wall, err = load(viaHeddle, conc, per)
		if err != nil {
			b.Fatal(err)
		}
		hLat, hWall = append(hLat, lat...), hWall+wall
	}
	b.StopTimer()
	dp50, dp99 := pct(dLat, 50), pct(dLat, 99)
	hp50, hp99 := pct(hLat, 50), pct(hLat, 99)
	drps, hrps := float64(n)/dWall.Seconds(), float64(n)/hWall.Seconds()
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	b.ReportMetric(us(dp50), "direct-p50-µs")
	b.ReportMetric(us(hp50), "heddle-p50-µs")
	b.ReportMetric(us(hp50-dp50), "added-p50-µs")
	b.ReportMetric(float64(hp50)/float64(dp50), "p50-ratio")
	b.ReportMetric(us(dp99), "direct-p99-µs")
	b.ReportMetric(us(hp99), "heddle-p99-µs")
	b.ReportMetric(us(hp99-dp99), "added-p99-µs")
	b.ReportMetric(float64(hp99)/float64(dp99), "p99-ratio")
	if testing.Verbose() {
		for _, p := range []int{50, 75, 90, 95, 98, 99} {
			b.Logf("p%d direct %v heddle %v", p, pct(dLat, p), pct(hLat, p))
		}
	}
	b.ReportMetric(drps, "direct-req/s")
	b.ReportMetric(hrps, "heddle-req/s")
	b.ReportMetric(hrps/drps, "req/s-ratio")
	if sink.n.Load()+int64(q.Dropped())+int64(q.Len()) < int64(n) {
		b.Fatalf("events: %d recorded, %d dropped for %d requests", sink.n.Load(), q.Dropped(), n)
	}
}

// load runs f total times from conc goroutines and returns each call's
// latency and the wall time.
func load(f func() error, conc, total int) ([]time.Duration, time.Duration, error) {
	lat := make([]time.Duration, total)
	var next atomic.Int64
	var wg sync.WaitGroup
	var firstErr atomic.Value
	start := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= total {
					return
				}
				t0 := time.Now()
				if err := f(); err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
				lat[i] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	if err, _ := firstErr.Load().(error); err != nil {
		return nil, 0, err
	}
	return lat, time.Since(start), nil
}

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}
