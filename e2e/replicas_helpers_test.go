package e2e

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
)

// gatedUpstream fronts a fake upstream: it counts every call that reaches
// it, announces each arrival, and while held keeps each call waiting until
// released before forwarding it.
type gatedUpstream struct {
	URL      string
	arrivals chan string // the path of each call, as it arrives
	calls    atomic.Int64

	mu   sync.Mutex
	gate chan struct{} // nil while open
}

func newGatedUpstream(t *testing.T, next *dispatchtest.Upstream) *gatedUpstream {
	t.Helper()
	target, err := url.Parse(next.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	g := &gatedUpstream{arrivals: make(chan string, 64)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g.calls.Add(1)
		g.mu.Lock()
		gate := g.gate
		g.mu.Unlock()
		select {
		case g.arrivals <- r.URL.Path:
		default:
		}
		if gate != nil {
			select {
			case <-gate:
			case <-r.Context().Done():
				return
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	g.URL = srv.URL
	t.Cleanup(func() { g.release(); srv.Close() })
	return g
}

// hold makes calls from now on wait for release.
func (g *gatedUpstream) hold() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gate == nil {
		g.gate = make(chan struct{})
	}
}

// release lets every held call through and stops holding.
func (g *gatedUpstream) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gate != nil {
		close(g.gate)
		g.gate = nil
	}
}

// arrived waits for the next call to reach the upstream.
func (g *gatedUpstream) arrived(t *testing.T) string {
	t.Helper()
	select {
	case p := <-g.arrivals:
		return p
	case <-time.After(20 * time.Second):
		t.Fatal("no call reached the upstream within 20s")
		return ""
	}
}

// redisMonitor records the commands Redis runs (MONITOR) on keys under a
// prefix, so a test can wait until a replica has asked Redis about a key.
type redisMonitor struct {
	mu    sync.Mutex
	lines []string
	more  chan struct{} // closed and replaced on every new line
}

func monitorRedis(t *testing.T, redisURL, prefix string) *redisMonitor {
	t.Helper()
	opts, err := redis.ParseURL(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.DialTimeout("tcp", opts.Addr, 5*time.Second)
	if err != nil {
		t.Fatalf("redis at %s: %v", opts.Addr, err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := conn.Write([]byte("MONITOR\r\n")); err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(conn)
	if ok, err := rd.ReadString('\n'); err != nil || strings.TrimSpace(ok) != "+OK" {
		t.Fatalf("MONITOR: %q %v", ok, err)
	}
	m := &redisMonitor{more: make(chan struct{})}
	go func() {
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				return
			}
			if !strings.Contains(line, `"`+prefix) {
				continue
			}
			m.mu.Lock()
			m.lines = append(m.lines, strings.TrimSpace(line))
			close(m.more)
			m.more = make(chan struct{})
			m.mu.Unlock()
		}
	}()
	return m
}

// claimCall matches the claim script's call on a key: KEYS[1], then the
// fingerprint, the stream flag, the owner token and the lease.
func claimCall(rkey string) *regexp.Regexp {
	return regexp.MustCompile(`"` + regexp.QuoteMeta(rkey) + `" "[0-9a-f]{64}" "[01]" "[0-9a-f]{32}" "[0-9]+"$`)
}

// waitCount waits until at least n recorded commands match re.
func (m *redisMonitor) waitCount(t *testing.T, re *regexp.Regexp, n int) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		m.mu.Lock()
		got := 0
		for _, l := range m.lines {
			if re.MatchString(l) {
				got++
			}
		}
		more := m.more
		m.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-more:
		case <-deadline:
			t.Fatalf("redis ran %d commands matching %s within 20s, want %d", got, re, n)
		}
	}
}

// dialRedis returns a client to redisURL, closed when t ends.
func dialRedis(t *testing.T, redisURL string) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { rdb.Close() })
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("redis at %s: %v", redisURL, err)
	}
	return rdb
}
