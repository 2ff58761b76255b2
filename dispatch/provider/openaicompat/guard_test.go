package openaicompat

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestDialGuardRefusesEmbeddedForms: the dialer refuses the addresses the
// outside probe got through (site-local, IPv4-compatible and 6to4 forms of
// loopback) and the other forms of refused ranges, before connecting.
func TestDialGuardRefusesEmbeddedForms(t *testing.T) {
	c := New(Config{}, nil)
	for _, addr := range []string{"fec0::1", "::127.0.0.1", "2002:7f00:1::1", "64:ff9b::a9fe:a9fe", "::ffff:169.254.169.254",
		"2001::1", "fd00::1"} {
		if err := control("tcp6", "["+addr+"]:443", nil); !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("control(%s) = %v, want blocked", addr, err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://["+addr+"]:9/", nil)
		resp, err := c.hc.Do(req)
		cancel()
		if resp != nil {
			resp.Body.Close()
		}
		if !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("dial %s: err %v, want blocked before connecting", addr, err)
		}
	}
	for _, addr := range []string{"198.18.0.1", "240.0.0.1", "0.0.0.0", "100.64.0.1"} {
		if err := control("tcp4", addr+":443", nil); !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("control(%s) = %v, want blocked", addr, err)
		}
	}
	for _, addr := range []string{"8.8.8.8:443", "[2606:4700::1111]:443"} {
		if err := control("tcp", addr, nil); err != nil {
			t.Errorf("control(%s) = %v, want allowed", addr, err)
		}
	}
	if err := control("tcp", "not-an-address", nil); !errors.Is(err, ErrBlockedAddress) {
		t.Errorf("control(garbage) = %v", err)
	}
}

// TestSendRefusesNonCanonicalHosts: a base URL naming loopback in a form
// resolvers accept (decimal, octal, hex, short) is refused before dialing.
func TestSendRefusesNonCanonicalHosts(t *testing.T) {
	srv, n, _ := loopback(t)
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	c := New(Config{}, srv.Client())
	for _, host := range []string{"2130706433", "127.1", "0177.0.0.1", "0x7f000001", "0", "[::127.0.0.1]", "[2002:7f00:1::1]"} {
		_, err := c.Send(context.Background(), call("mine", "", "http://"+host+port))
		if !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("%s: err %v, want blocked", host, err)
		}
	}
	if got := n.Load(); got != 0 {
		t.Fatalf("the loopback server got %d requests", got)
	}
}

// TestRedirectGuard: a guarded client follows no redirect to a refused
// host, whatever the answering upstream says.
func TestRedirectGuard(t *testing.T) {
	var hits atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }))
	t.Cleanup(target.Close)
	port := target.URL[strings.LastIndex(target.URL, ":"):]
	var location atomic.Value
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, location.Load().(string), http.StatusTemporaryRedirect)
	}))
	t.Cleanup(upstream.Close)
	// The upstream itself is on loopback, so the redirect check is tested on
	// a client whose dialer is not guarded; GuardedClient installs the same.
	hc := upstream.Client()
	hc.CheckRedirect = guardRedirects(nil)
	for _, loc := range []string{target.URL + "/", "http://localhost" + port + "/", "http://2130706433" + port + "/",
		"http://169.254.169.254/latest/meta-data/", "http://[::ffff:127.0.0.1]" + port + "/"} {
		location.Store(loc)
		resp, err := hc.Post(upstream.URL+"/chat/completions", "application/json", strings.NewReader("{}"))
		if resp != nil {
			resp.Body.Close()
		}
		if !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("redirect to %s: err %v, want blocked", loc, err)
		}
	}
	if got := hits.Load(); got != 0 {
		t.Fatalf("the redirect target got %d requests", got)
	}
	// A redirect to a public name passes the check (and the limit is kept).
	req, _ := http.NewRequest(http.MethodGet, "https://api.openai.com/v1/models", nil)
	check := GuardedClient(nil).CheckRedirect
	if err := check(req, make([]*http.Request, 1)); err != nil {
		t.Errorf("public redirect refused: %v", err)
	}
	if err := check(req, make([]*http.Request, maxRedirects)); err == nil {
		t.Error("the redirect limit is gone")
	}
	prev := errors.New("caller's own check")
	chained := GuardedClient(&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return prev }}).CheckRedirect
	if err := chained(req, nil); !errors.Is(err, prev) {
		t.Errorf("the caller's redirect check was dropped: %v", err)
	}
}
