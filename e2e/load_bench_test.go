package e2e

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// loadClient calls a base URL as a wire format's client would.
type loadClient struct {
	hc        *http.Client
	base, key string
	anthropic bool // POST /v1/messages with x-api-key, else /v1/chat/completions
}

func newHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: 2000, MaxIdleConnsPerHost: 2000, MaxConnsPerHost: 0,
		IdleConnTimeout: time.Minute, DisableCompression: true}, Timeout: 2 * time.Minute}
}

var errNotOK = errors.New("status not 200")

// do sends one request and reads the whole answer; ttfb is the time to its
// first body byte.
func (c loadClient) do(stream bool, i int) (ttfb, total time.Duration, err error) {
	var path, body string
	if c.anthropic {
		path = "/v1/messages"
		body = `{"model":"gpt-5-mini","max_tokens":64,"stream":` + strconv.FormatBool(stream) + `,"messages":[{"role":"user","content":"load question ` + strconv.Itoa(i) + `"}]}`
	} else {
		path = "/v1/chat/completions"
		body = `{"model":"gpt-5-mini","stream":` + strconv.FormatBool(stream) + `,"messages":[{"role":"user","content":"load question ` + strconv.Itoa(i) + `"}]}`
	}
	req, err := http.NewRequest("POST", c.base+path, strings.NewReader(body))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Cache-Control", "no-cache")
	if c.anthropic {
		req.Header.Set("x-api-key", c.key)
		req.Header.Set("anthropic-version", "2023-06-01")
	} else {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	start := time.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if _, err := br.Peek(1); err != nil {
		return 0, 0, err
	}
	ttfb = time.Since(start)
	if _, err := io.Copy(io.Discard, br); err != nil {
		return 0, 0, err
	}
	if resp.StatusCode != 200 {
		return 0, 0, fmt.Errorf("%w: %d %s", errNotOK, resp.StatusCode, resp.Header.Get("x-heddle-error"))
	}
	return ttfb, time.Since(start), nil
}

// run runs workers callers for d and returns the requests completed and
// the time they took.
func (c loadClient) run(tb testing.TB, workers int, d time.Duration, stream bool) (int64, time.Duration) {
	var done, failed atomic.Int64
	var wg sync.WaitGroup
	stop := time.Now().Add(d)
	start := time.Now()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(stop); i++ {
				if _, _, err := c.do(stream, w*1_000_000+i); err != nil {
					failed.Add(1)
					continue
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := failed.Load(); n > 0 {
		tb.Errorf("%s: %d of %d requests failed", c.base, n, n+done.Load())
	}
	return done.Load(), time.Since(start)
}

// burst starts n streams at once and returns streams per second (n over
// the wall time until the last ended) and every stream's time to first byte.
func (c loadClient) burst(tb testing.TB, n int) (float64, []time.Duration) {
	ttfbs := make([]time.Duration, n)
	var failed atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			t, _, err := c.do(true, i)
			if err != nil {
				failed.Add(1)
				firstErr.CompareAndSwap(nil, err.Error())
				return
			}
			ttfbs[i] = t
		}()
	}
	start := time.Now()
	close(gate)
	wg.Wait()
	wall := time.Since(start)
	if f := failed.Load(); f > 0 {
		tb.Errorf("%s: %d of %d streams failed (first: %v)", c.base, f, n, firstErr.Load())
	}
	slices.Sort(ttfbs)
	return float64(n) / wall.Seconds(), ttfbs
}

// latencies runs n sequential requests alternating direct and via, and
// returns both sets of latencies sorted.
func latencies(tb testing.TB, direct, via loadClient, n int, stream bool) (d, v []time.Duration) {
	for i := range n {
		for _, side := range []struct {
			c   loadClient
			out *[]time.Duration
		}{{direct, &d}, {via, &v}} {
			_, total, err := side.c.do(stream, i)
			if err != nil {
				tb.Fatalf("%s: %v", side.c.base, err)
			}
			*side.out = append(*side.out, total)
		}
	}
	slices.Sort(d)
	slices.Sort(v)
	return d, v
}

func pct(s []time.Duration, p float64) time.Duration {
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// rssKB reads a /proc/<pid>/status field (VmRSS, VmHWM) in KiB.
func rssKB(pid int, field string) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return n
		}
	}
	return 0
}

func loadAverage() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// cpuTime is the user plus system CPU time pid used so far (from
// /proc/<pid>/stat, in clock ticks of 10 ms; 0 when unreadable).
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command name (in parentheses, which may hold
	// spaces): utime and stime are the 12th and 13th of them.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// machineTicks is the machine's CPU time so far, all of it and the idle
// part (the first line of /proc/stat, in clock ticks; zeros when
// unreadable).
func machineTicks() (total, idle int64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	for i, v := range f[1:] {
		n, _ := strconv.ParseInt(v, 10, 64)
		total += n
		if i == 3 || i == 4 { // idle, iowait
			idle += n
		}
	}
	return total, idle
}

// usage is what the machine and this test process (the load client and
// the fake upstreams) spent over a run.
type usage struct {
	self         time.Duration
	total, idle0 int64
}

func startUsage() usage {
	t, i := machineTicks()
	return usage{self: cpuTime(os.Getpid()), total: t, idle0: i}
}

// end returns the test process's CPU per request (the load client and the
// fake upstream together) and the machine's idle share over the run.
func (u usage) end(requests float64) (selfPerReq float64, idleShare float64) {
	t, i := machineTicks()
	if t > u.total {
		idleShare = float64(i-u.idle0) / float64(t-u.total)
	}
	if requests > 0 {
		selfPerReq = float64((cpuTime(os.Getpid()) - u.self).Microseconds()) / requests
	}
	return selfPerReq, idleShare
}
