package app

import (
	"errors"
	"github.com/heddle-gw/heddle/internal/fastupstream"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch/provider/openaicompat"
	"github.com/heddle-gw/heddle/internal/netpolicy"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// TestLoadCatalogAddressPolicy: an operator override naming a refused
// address fails startup unless private upstreams are allowed; a
// non-canonical literal fails it either way.
func TestLoadCatalogAddressPolicy(t *testing.T) {
	tests := []struct {
		base                string
		strictOK, allowedOK bool
	}{
		{"https://llm.example.com/v1", true, true},
		{"https://8.8.8.8/v1", true, true},
		{"http://10.0.0.5/v1", false, true},
		{"https://[fec0::1]/v1", false, true},
		{"https://198.18.0.1/v1", false, true},
		{"https://localhost:8000/v1", false, true},
		{"https://0x7f000001/v1", false, false},
		{"https://2130706433/v1", false, false},
		{"https://127.1/v1", false, false},
	}
	for _, tc := range tests {
		path := filepath.Join(t.TempDir(), "catalog.json")
		body := `{"version":"t","providers":[{"name":"local","format":"openai_chat","base_url":"` + tc.base + `","compatible":true}],"models":[]}`
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, allow := range []bool{false, true} {
			want := tc.strictOK
			if allow {
				want = tc.allowedOK
			}
			cat, err := loadCatalog(Config{CatalogFile: path, AllowPrivate: allow})
			if (err == nil) != want {
				t.Errorf("%s (allow private %v): err %v, want ok=%v", tc.base, allow, err, want)
			}
			if err != nil && !errors.Is(err, netpolicy.ErrRefused) {
				t.Errorf("%s: err %v, not the address policy's", tc.base, err)
			}
			if err == nil {
				if p, perr := cat.Provider("local"); perr != nil || p.BaseURL != tc.base {
					t.Errorf("%s: provider %+v, %v", tc.base, p, perr)
				}
			}
		}
	}
}

// TestProviderClientRedirects: the client app gives every provider adapter
// follows no redirect to a refused address, and refuses loopback at dial
// time, unless private upstreams are allowed.
func TestProviderClientRedirects(t *testing.T) {
	for _, tr := range []string{transportNetHTTP, transportFastHTTP} {
		t.Run(tr, func(t *testing.T) { checkProviderClientRedirects(t, tr) })
	}
}

func checkProviderClientRedirects(t *testing.T, transport string) {
	var hits atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(target.Close)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/moved", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(upstream.Close)

	strict := providerClient(false, transport)
	if _, err := strict.Get(upstream.URL); !errors.Is(err, openaicompat.ErrBlockedAddress) {
		t.Errorf("strict client dialed loopback: %v", err)
	}
	// The redirect check alone, on the strict client's own CheckRedirect.
	req, _ := http.NewRequest(http.MethodGet, target.URL+"/moved", nil)
	if err := strict.CheckRedirect(req, make([]*http.Request, 1)); !errors.Is(err, openaicompat.ErrBlockedAddress) {
		t.Errorf("strict client follows a redirect to %s: %v", target.URL, err)
	}
	if hits.Load() != 0 {
		t.Fatalf("the redirect target got %d requests", hits.Load())
	}

	lax := providerClient(true, transport)
	resp, err := lax.Get(upstream.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if hits.Load() != 1 || !strings.HasSuffix(resp.Request.URL.Path, "/moved") {
		t.Fatalf("with private upstreams allowed the redirect is followed: hits %d, final %s", hits.Load(), resp.Request.URL)
	}
}

// TestProviderClientKeepsABurstsConnections: after a burst of concurrent
// upstream requests (more than net/http's and our old idle limit of 256 per
// host), the next burst of the same size reuses every connection instead
// of dialing again, and the client never asks the upstream to compress (a
// gzip body would be inflated on the gateway's CPU for every response).
func TestProviderClientKeepsABurstsConnections(t *testing.T) {
	for _, tr := range []string{transportNetHTTP, transportFastHTTP} {
		t.Run(tr, func(t *testing.T) { checkProviderClientKeepsABurstsConnections(t, tr) })
	}
}

func checkProviderClientKeepsABurstsConnections(t *testing.T, transport string) {
	const burst = 300
	var dials, arrived atomic.Int64
	var gzipAsked atomic.Bool
	var release atomic.Pointer[chan struct{}]
	upstream := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") != "" {
			gzipAsked.Store(true)
		}
		ch := *release.Load()
		arrived.Add(1)
		<-ch // every request of the burst is in flight at once
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	upstream.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			dials.Add(1)
		}
	}
	upstream.Start()
	t.Cleanup(upstream.Close)

	hc := providerClient(true, transport)
	t.Cleanup(hc.CloseIdleConnections)
	round := func() {
		ch := make(chan struct{})
		release.Store(&ch)
		arrived.Store(0)
		errs := make(chan error, burst)
		for range burst {
			go func() {
				resp, err := hc.Get(upstream.URL)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body) // EOF puts the conn back in the pool
					resp.Body.Close()
				}
				errs <- err
			}()
		}
		testwait.Until(t, time.Minute, "the whole burst in flight", func() bool { return arrived.Load() == burst })
		close(ch)
		for range burst {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
	}
	round()
	if d := dials.Load(); d != burst {
		t.Fatalf("first burst dialed %d connections, want %d", d, burst)
	}
	round()
	if d := dials.Load() - burst; d != 0 {
		t.Errorf("second burst of %d dialed %d new connections, want 0 (idle pool too small)", burst, d)
	}
	if gzipAsked.Load() {
		t.Error("the upstream client sent Accept-Encoding")
	}
}

// TestStrictFastClientKeepsFastTransport: the address guard installs its
// dial check in the fast transport instead of replacing it with net/http,
// and that transport refuses loopback before any request is sent.
func TestStrictFastClientKeepsFastTransport(t *testing.T) {
	var hits atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	t.Cleanup(s.Close)
	hc := providerClient(false, transportFastHTTP)
	if _, ok := hc.Transport.(*fastupstream.Transport); !ok {
		t.Fatalf("guarded transport is %T, want *fastupstream.Transport", hc.Transport)
	}
	req, _ := http.NewRequest(http.MethodPost, s.URL, strings.NewReader("{}"))
	if _, err := hc.Do(req); !errors.Is(err, openaicompat.ErrBlockedAddress) || hits.Load() != 0 {
		t.Fatalf("err %v, hits %d; want ErrBlockedAddress and no request", err, hits.Load())
	}
}
