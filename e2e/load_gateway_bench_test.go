package e2e

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/internal/testwait"
)

var (
	loadSeconds      = flag.Duration("load.duration", 3*time.Second, "BenchmarkGatewayLoad: length of each c=32 run")
	loadSlices       = flag.Int("load.slices", 4, "BenchmarkGatewayLoad: each c=32 run alternates this many slices of direct and via-Heddle load, so a drift of the machine's speed moves both sides alike")
	loadStreams      = flag.Int("load.streams", 500, "BenchmarkGatewayLoad: concurrent slow streams")
	loadProfile      = flag.String("load.profile", "", "BenchmarkGatewayLoad: write a CPU profile of the binary during the c=32 non-stream run to this file")
	loadTrace        = flag.String("load.trace", "", "BenchmarkGatewayLoad: write an execution trace of the binary (go tool trace) during the c=32 non-stream run to this file")
	loadAllocs       = flag.String("load.allocs", "", "BenchmarkGatewayLoad: write the binary's allocations (pprof allocs, a delta) during the c=32 non-stream run to this file")
	loadBurstProfile = flag.String("load.burstprofile", "", "BenchmarkGatewayLoad: write a CPU profile of the binary during the first second of the slow-stream burst to this file")
	loadBurstTrace   = flag.String("load.bursttrace", "", "BenchmarkGatewayLoad: write an execution trace of the binary (go tool trace) during the first second of the cold slow-stream burst to this file")
	loadBurstAllocs  = flag.String("load.burstallocs", "", "BenchmarkGatewayLoad: write the binary's heap profile (after a GC) just before each slow-stream burst to FILE.cold.base and FILE.warm.base, and just after it to FILE.cold and FILE.warm: go tool pprof -sample_index=alloc_space -diff_base FILE.cold.base FILE.cold")
)

// BenchmarkGatewayLoad runs the built binary (events on, Cache-Control:
// no-cache) in front of fake OpenAI upstreams over loopback TCP and
// measures each load directly against the upstream and through Heddle in
// the same run: c=1 added p50; c=32 throughput ratio, non-stream and
// stream, same-format (OpenAI Chat in) and translated (Anthropic Messages
// in); N concurrent slow streams (about 2 s each) on one credential, twice
// (cold pools, then warm): streams/s ratio and time-to-first-byte p99
// against direct; and the
// binary's RSS. Beside each c=32 ratio it reports Heddle's CPU time per
// request (from /proc), which a shared machine's load moves far less. Run it with -benchtime 1x (make bench). "embedded" is the
// default deployment (SQLite, embedded analytics); "hosted" is Postgres and
// ClickHouse.
func BenchmarkGatewayLoad(b *testing.B) {
	b.Run("embedded", func(b *testing.B) { benchLoad(b, nil) })
	b.Run("hosted", func(b *testing.B) {
		ch, _ := freshClickHouse(b)
		benchLoad(b, map[string]string{"HEDDLE_DATABASE_URL": freshPostgres(b), "HEDDLE_CLICKHOUSE_URL": ch})
	})
}

func benchLoad(b *testing.B, env map[string]string) {
	fast := newPacedUpstream(b, 3, 0)
	slow := newPacedUpstream(b, 21, 100*time.Millisecond) // about 2 s a stream
	debug := fmt.Sprintf("127.0.0.1:%d", freePort(b))
	vars := map[string]string{"HEDDLE_DEBUG_ADDR": debug}
	for k, v := range env {
		vars[k] = v
	}
	in := startHeddle(b, vars)
	fastOrg := signUp(b, in.URL, "load-fast@example.com", "openai", fakeSecret, fast.URL+"/v1")
	slowOrg := signUp(b, in.URL, "load-slow@example.com", "openai", fakeSecret, slow.URL+"/v1")
	hc := newHTTPClient()
	direct := loadClient{hc: hc, base: fast.URL, key: fakeSecret}
	via := loadClient{hc: hc, base: in.URL, key: fastOrg.Key}
	viaAnthropic := loadClient{hc: hc, base: in.URL, key: fastOrg.Key, anthropic: true}
	pid := in.cmd.Process.Pid

	for b.Loop() {
		b.Logf("load average at start: %s", loadAverage())
		latencies(b, direct, via, 50, false) // warm up connections, caches, the JIT-free runtime
		d, v := latencies(b, direct, via, 400, false)
		b.ReportMetric(ms(pct(v, 0.5)-pct(d, 0.5)), "c1-added-p50-ms")
		b.Logf("c=1 non-stream p50: direct %.3f ms, heddle %.3f ms (added %.3f ms)", ms(pct(d, 0.5)), ms(pct(v, 0.5)), ms(pct(v, 0.5)-pct(d, 0.5)))

		for _, sc := range []struct {
			name   string
			via    loadClient
			stream bool
		}{
			{"c32-nonstream", via, false}, {"c32-stream", via, true},
			{"c32-nonstream-translated", viaAnthropic, false}, {"c32-stream-translated", viaAnthropic, true},
		} {
			var prof chan error
			// The profile spans every via slice (Heddle is idle in the
			// direct ones).
			span := 2**loadSeconds - time.Second
			if sc.name == "c32-nonstream" && *loadProfile != "" {
				prof = profileBinary(debug, "profile", span, *loadProfile)
			} else if sc.name == "c32-nonstream" && *loadAllocs != "" {
				prof = profileBinary(debug, "allocs", span, *loadAllocs)
			}
			// Direct and via Heddle alternate in slices; each side's rate
			// is its requests over its own time.
			slices := max(*loadSlices, 1)
			slice := *loadSeconds / time.Duration(slices)
			var dN, vN int64
			var dT, vT time.Duration
			var dSelf, vSelf, dIdle, vIdle float64
			var heddleCPU time.Duration
			for k := range slices {
				du := startUsage()
				n, t := direct.run(b, 32, slice, sc.stream)
				s, i := du.end(float64(n))
				dN, dT, dSelf, dIdle = dN+n, dT+t, dSelf+s*float64(n), dIdle+i*t.Seconds()
				if k == 0 && sc.name == "c32-nonstream" && *loadTrace != "" && prof == nil {
					prof = profileBinary(debug, "trace", min(time.Second, slice), *loadTrace) // in the first via slice
				}
				cpu0 := cpuTime(pid)
				vu := startUsage()
				n, t = sc.via.run(b, 32, slice, sc.stream)
				s, i = vu.end(float64(n))
				heddleCPU += cpuTime(pid) - cpu0
				vN, vT, vSelf, vIdle = vN+n, vT+t, vSelf+s*float64(n), vIdle+i*t.Seconds()
			}
			base, got := float64(dN)/dT.Seconds(), float64(vN)/vT.Seconds()
			dSelf, vSelf = dSelf/float64(max(dN, 1)), vSelf/float64(max(vN, 1))
			dIdle, vIdle = dIdle/dT.Seconds(), vIdle/vT.Seconds()
			// Heddle's own CPU per request: unlike the ratio, it hardly
			// depends on what else the machine runs.
			cpuPerReq := float64(heddleCPU.Microseconds()) / float64(max(vN, 1))
			if prof != nil {
				if err := <-prof; err != nil {
					b.Errorf("profile: %v", err)
				}
			}
			b.ReportMetric(got/base, sc.name+"-ratio")
			b.ReportMetric(cpuPerReq, sc.name+"-cpu-us/req")
			// Beside it, where the rest of the machine went: the load
			// client and the fake upstream (this process) per request, and
			// the idle share (one line: a benchmark's log keeps 10).
			b.Logf("%s: direct %.0f req/s, heddle %.0f req/s, ratio %.3f, heddle CPU %.0f us/request; load client + upstream CPU %.0f us/request direct, %.0f via heddle; machine idle %.0f%% direct, %.0f%% via heddle (load %s)",
				sc.name, base, got, got/base, cpuPerReq, dSelf, vSelf, 100*dIdle, 100*vIdle, loadAverage())
		}

		// Two bursts on the same clients: the first finds every pool cold
		// (the load client's and Heddle's upstream connections are dialled
		// during it), the second finds the connections the first left idle,
		// as a gateway serving a team's agents all day does.
		slowDirect := loadClient{hc: newHTTPClient(), base: slow.URL, key: fakeSecret}
		slowVia := loadClient{hc: newHTTPClient(), base: in.URL, key: slowOrg.Key}
		for _, round := range []string{"cold", "warm"} {
			baseRate, baseTTFB := slowDirect.burst(b, *loadStreams)
			if *loadBurstAllocs != "" {
				// A delta allocs profile misses what the last GC has not
				// published yet; a heap profile with gc=1 has all of it.
				if err := <-profileBinary(debug, "heap?gc=1", 0, *loadBurstAllocs+"."+round+".base"); err != nil {
					b.Errorf("heap profile: %v", err)
				}
			}
			var burstProfs []chan error // a CPU profile and a trace may run together
			if *loadBurstProfile != "" && round == "cold" {
				burstProfs = append(burstProfs, profileBinary(debug, "profile", time.Second, *loadBurstProfile))
			}
			if *loadBurstTrace != "" && round == "cold" {
				burstProfs = append(burstProfs, profileBinary(debug, "trace", time.Second, *loadBurstTrace))
			}
			if len(burstProfs) > 0 {
				// The burst must not start before the captures do: the
				// request that starts them races with it otherwise, and
				// loses (the arrivals then miss the capture).
				testwait.Until(b, 10*time.Second, "the burst captures to start", func() bool { return capturing(debug) >= len(burstProfs) })
			}
			gc0 := gcCycles(b, in.URL) // scraped outside the CPU measurement
			cpu0 := cpuTime(pid)
			gotRate, gotTTFB := slowVia.burst(b, *loadStreams)
			// Heddle's CPU per stream (its 21 chunks, and for the cold
			// burst the connections it accepted and dialled).
			cpuPerStream := float64((cpuTime(pid) - cpu0).Microseconds()) / float64(*loadStreams)
			gcs := gcCycles(b, in.URL) - gc0
			if *loadBurstAllocs != "" {
				if err := <-profileBinary(debug, "heap?gc=1", 0, *loadBurstAllocs+"."+round); err != nil {
					b.Errorf("heap profile: %v", err)
				}
			}
			for _, p := range burstProfs {
				if err := <-p; err != nil {
					b.Errorf("burst profile or trace: %v", err)
				}
			}
			prefix := "" // the cold burst keeps the metric names it always had
			if round == "warm" {
				prefix = "warm-"
			}
			b.ReportMetric(gotRate/baseRate, prefix+"streams-ratio")
			b.ReportMetric(ms(pct(gotTTFB, 0.99)-pct(baseTTFB, 0.99)), prefix+"streams-ttfb-p99-added-ms")
			b.ReportMetric(ms(pct(gotTTFB, 0.5)-pct(baseTTFB, 0.5)), prefix+"streams-ttfb-p50-added-ms")
			b.ReportMetric(cpuPerStream, prefix+"streams-cpu-us/stream")
			b.Logf("%d slow streams, %s pools: direct %.1f streams/s (TTFB p50 %.1f ms, p99 %.1f ms), heddle %.1f streams/s (TTFB p50 %.1f ms, p99 %.1f ms), ratio %.3f, heddle CPU %.0f us/stream, %d GC cycles (load %s)",
				*loadStreams, round, baseRate, ms(pct(baseTTFB, 0.5)), ms(pct(baseTTFB, 0.99)), gotRate, ms(pct(gotTTFB, 0.5)), ms(pct(gotTTFB, 0.99)), gotRate/baseRate, cpuPerStream, gcs, loadAverage())
		}
		rss, peak := rssKB(pid, "VmRSS"), rssKB(pid, "VmHWM")
		b.ReportMetric(float64(rss)/1024, "rss-MiB")
		b.ReportMetric(float64(peak)/1024, "peak-rss-MiB")
		b.Logf("heddle RSS %.0f MiB, peak %.0f MiB; load average at end: %s", float64(rss)/1024, float64(peak)/1024, loadAverage())
	}
}

// gcCycles is the number of collections the binary has run, from its
// /metrics (an unreadable count fails the benchmark): a collection during a burst makes its
// arrivals assist the collector, which moves time to first byte.
func gcCycles(tb testing.TB, base string) int {
	tb.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		tb.Errorf("GC cycles: %v", err)
		return 0
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Errorf("GC cycles: read /metrics: %v", err)
		return 0
	}
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, "go_gc_duration_seconds_count "); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				tb.Errorf("GC cycles: %q: %v", line, err)
				return 0
			}
			return n
		}
	}
	tb.Errorf("GC cycles: no go_gc_duration_seconds_count in /metrics (status %d)", resp.StatusCode)
	return 0
}

// capturing counts the CPU profiles and traces the binary is taking now:
// its goroutines sleeping in net/http/pprof's handlers.
func capturing(debugAddr string) int {
	resp, err := http.Get("http://" + debugAddr + "/debug/pprof/goroutine?debug=2")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	dump, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0
	}
	return strings.Count(string(dump), "net/http/pprof.sleep(")
}

// profileBinary fetches a CPU profile ("profile"), the allocations
// ("allocs") or an execution trace ("trace") of d from the binary's debug
// listener into file, in the background; with d 0 it fetches a snapshot
// (kind "heap?gc=1").
func profileBinary(debugAddr, kind string, d time.Duration, file string) chan error {
	done := make(chan error, 1)
	go func() {
		url := fmt.Sprintf("http://%s/debug/pprof/%s?seconds=%d", debugAddr, kind, max(1, int(d.Seconds())))
		if d == 0 { // a snapshot; kind may carry its own query
			url = fmt.Sprintf("http://%s/debug/pprof/%s", debugAddr, kind)
		}
		resp, err := http.Get(url)
		if err != nil {
			done <- err
			return
		}
		defer resp.Body.Close()
		f, err := os.Create(file)
		if err != nil {
			done <- err
			return
		}
		_, err = io.Copy(f, resp.Body)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		done <- err
	}()
	return done
}
