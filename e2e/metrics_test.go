package e2e

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// sample is one exposed series: its labels and value.
type sample struct {
	labels map[string]string
	value  float64
}

// scrape returns every series of /metrics by name (histogram parts under
// their own _bucket, _sum and _count names).
func scrape(t *testing.T, base string) map[string][]sample {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]sample{}
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		series, val, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(val, 64)
		if err != nil {
			t.Fatalf("metric line %q: %v", line, err)
		}
		name, rest, _ := strings.Cut(series, "{")
		s := sample{labels: map[string]string{}, value: v}
		for _, kv := range strings.Split(strings.TrimSuffix(rest, "}"), ",") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				s.labels[k] = strings.Trim(v, `"`)
			}
		}
		out[name] = append(out[name], s)
	}
	return out
}

// find returns the value of the series of name whose labels include want,
// and how many series matched.
func find(all map[string][]sample, name string, want map[string]string) (float64, int) {
	var v float64
	n := 0
	for _, s := range all[name] {
		match := true
		for k, w := range want {
			if s.labels[k] != w {
				match = false
			}
		}
		if match {
			v += s.value
			n++
		}
	}
	return v, n
}

// TestMetricsAfterRequests: after a few requests /metrics has the latency,
// time-to-first-byte and upstream-attempt histograms with bounded labels and
// the right counts, and token counters; pprof is only on the debug listener.
func TestMetricsAfterRequests(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	debug := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	in := startHeddle(t, map[string]string{"HEDDLE_DEBUG_ADDR": debug})
	a := signUp(t, in.URL, "metrics@example.com", "openai", fakeSecret, up.URL+"/v1")
	const n = 3
	for i := range n {
		resp, body := chat(t, in.URL, a.Key, fmt.Sprintf(`{"model":"gpt-5-mini","messages":[{"role":"user","content":"metrics %d"}]}`, i))
		if resp.StatusCode != 200 {
			t.Fatalf("request %d: %d %s", i, resp.StatusCode, body)
		}
	}
	turn := map[string]string{"format": "openai_chat", "provider": "openai", "model": "gpt-5-mini", "route": "explicit", "outcome": "success"}
	var all map[string][]sample
	// Request records reach the metrics just after the answer: poll.
	testwait.Until(t, 10*time.Second, "request histogram count", func() bool {
		all = scrape(t, in.URL)
		v, _ := find(all, "heddle_request_duration_seconds_count", turn)
		return v == n
	})
	for _, name := range []string{"heddle_request_duration_seconds_bucket", "heddle_request_ttfb_seconds_bucket"} {
		if _, series := find(all, name, turn); series < 10 {
			t.Errorf("%s{%v}: %d buckets", name, turn, series)
		}
	}
	if v, _ := find(all, "heddle_request_ttfb_seconds_count", turn); v != n {
		t.Errorf("ttfb count = %v, want %d", v, n)
	}
	attempt := map[string]string{"provider": "openai", "model": "gpt-5-mini", "outcome": "served"}
	if v, _ := find(all, "heddle_attempt_duration_seconds_count", attempt); v != n {
		t.Errorf("attempt histogram count = %v, want %d", v, n)
	}
	if v, _ := find(all, "heddle_tokens_total", map[string]string{"provider": "openai", "model": "gpt-5-mini", "kind": "input"}); v <= 0 {
		t.Errorf("input tokens = %v", v)
	}
	for _, s := range all["heddle_request_duration_seconds_count"] {
		for k, v := range s.labels {
			if strings.Contains(v, a.OrgID) || strings.Contains(v, a.KeyID) || k == "org" || k == "org_id" {
				t.Errorf("an organisation or key id in a label: %v", s.labels)
			}
		}
	}
	if _, series := find(all, "go_goroutines", nil); series != 1 {
		t.Errorf("go runtime metrics missing")
	}

	resp, err := http.Get(in.URL + "/debug/pprof/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == 200 {
		t.Errorf("pprof answered on the public listener")
	}
	resp, err = http.Get("http://" + debug + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatalf("debug listener: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "goroutine profile") {
		t.Errorf("pprof on the debug listener: %d %.80s", resp.StatusCode, body)
	}
}
