package fastupstream_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/internal/fastupstream"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// rawServer is an upstream that writes its answers byte for byte: answer
// gets each request (on any connection) and writes to the connection; it
// returns false to close the connection. Unless it does, a connection is
// kept open and read for the next request, whatever the answer said.
type rawServer struct {
	url             string
	dials, requests atomic.Int64
}

func newRawServer(t testing.TB, answer func(nc net.Conn, req *http.Request) bool) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{url: "http://" + ln.Addr().String()}
	conns := make(chan net.Conn, 64)
	t.Cleanup(func() {
		ln.Close()
		for {
			select {
			case nc := <-conns:
				nc.Close()
			default:
				return
			}
		}
	})
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			s.dials.Add(1)
			select {
			case conns <- nc:
			default:
			}
			go func() {
				defer nc.Close()
				br := bufio.NewReader(nc)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					_, _ = io.Copy(io.Discard, req.Body)
					s.requests.Add(1)
					if !answer(nc, req) {
						return
					}
				}
			}()
		}
	}()
	return s
}

func answerWith(resp string) func(net.Conn, *http.Request) bool {
	return func(nc net.Conn, _ *http.Request) bool {
		_, err := io.WriteString(nc, resp)
		return err == nil
	}
}

// get sends method to url and reads the whole body.
func send(t *testing.T, hc *http.Client, method, url string) (*http.Response, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // a hang bound only
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}

// TestKeepAliveOnlyWhenAllowed: a connection goes back to the pool only when
// the answer allows it: not after "Connection: close" in any spelling, not
// after an HTTP/1.0 answer, whether or not the answer has a body. The server
// here would go on answering on the same connection, so only the dial count
// shows whether the client reused it.
func TestKeepAliveOnlyWhenAllowed(t *testing.T) {
	for _, tc := range []struct {
		name, method, resp string
		wantBody           string
		wantDials          int64
	}{
		{"keep-alive", "GET", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", "ok", 1},
		{"keep-alive no body", "GET", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", "", 1},
		{"close with body", "GET", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", "ok", 2},
		{"close empty body", "GET", "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", "", 2},
		{"close 204", "GET", "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n", "", 2},
		{"close HEAD", "HEAD", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 9\r\n\r\n", "", 2},
		{"close capitalised", "GET", "HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 2\r\n\r\nok", "ok", 2},
		{"close in a list", "GET", "HTTP/1.1 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 2\r\n\r\nok", "ok", 2},
		{"http/1.0 empty body", "GET", "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", "", 2},
		{"unsolicited 101", "GET", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: upgrade\r\n\r\n", "", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newRawServer(t, answerWith(tc.resp))
			hc := client(t)
			for round := range 2 {
				_, got, err := send(t, hc, tc.method, s.url+"/")
				if err != nil || got != tc.wantBody {
					t.Fatalf("round %d: body %q, %v; want %q", round, got, err, tc.wantBody)
				}
			}
			if d := s.dials.Load(); d != tc.wantDials {
				t.Fatalf("2 requests dialed %d connections, want %d", d, tc.wantDials)
			}
		})
	}
}

// TestFraming: how the body is delimited, and what is an error.
func TestFraming(t *testing.T) {
	for _, tc := range []struct {
		name, resp string
		wantBody   string
		wantErr    string // substring; "" for none
		wantLen    int64
		wantDials  int64 // after two requests
	}{
		{"chunked with extensions and trailer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n" +
			"5;name=value\r\nhello\r\n1;x\r\n!\r\n0;last\r\nX-Sum: abc\r\n\r\n", "hello!", "", -1, 1},
		{"informational answers skipped", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n" +
			"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", "ok", "", 2, 1},
		{"equal duplicate content-length", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok", "ok", "", 2, 1},
		{"conflicting content-length", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 4\r\n\r\nokok", "", "Content-Length", 0, 2},
		{"conflicting content-length, other case", "HTTP/1.1 200 OK\r\nX-A: b\r\ncontent-length: 2\r\nCONTENT-LENGTH: 4\r\n\r\nokok", "", "Content-Length", 0, 2},
		{"bare LF line ends", "HTTP/1.1 200 OK\nContent-Length: 2\n\nok", "ok", "", 2, 1},
		{"invalid content-length", "HTTP/1.1 200 OK\r\nContent-Length: 2x\r\n\r\nok", "", "Content-Length", 0, 2},
		{"folded header line", "HTTP/1.1 200 OK\r\nX-Folded: a\r\n  b\r\nContent-Length: 2\r\n\r\nok", "ok", "", 2, 1},
		{"body longer than announced", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nextra", "ok", "", 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newRawServer(t, answerWith(tc.resp))
			hc := client(t)
			for round := range 2 {
				resp, got, err := send(t, hc, "GET", s.url+"/")
				if tc.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
						t.Fatalf("round %d: body %q, err %v; want an error about %s", round, got, err, tc.wantErr)
					}
					continue
				}
				if err != nil || got != tc.wantBody {
					t.Fatalf("round %d: body %q, %v; want %q", round, got, err, tc.wantBody)
				}
				if resp.ContentLength != tc.wantLen || resp.Header.Get("Link") != "" {
					t.Fatalf("ContentLength %d, want %d; header %v", resp.ContentLength, tc.wantLen, resp.Header)
				}
				if v := resp.Header.Get("X-Folded"); strings.Contains(tc.resp, "X-Folded") && (strings.Join(strings.Fields(v), " ") != "a b" || strings.ContainsAny(v, "\r\n")) {
					t.Fatalf("folded header %q, want a and b joined by spaces (RFC 9112 5.2)", v)
				}
				if strings.Contains(tc.resp, "X-Sum") && resp.Trailer.Get("X-Sum") != "abc" {
					t.Fatalf("trailer %v, want X-Sum: abc", resp.Trailer)
				}
			}
			if d := s.dials.Load(); d != tc.wantDials {
				t.Fatalf("2 requests dialed %d connections, want %d", d, tc.wantDials)
			}
		})
	}
}

// TestBodyShorterThanAnnounced: a body cut short by the server closing is an
// error, and the next request dials a new connection.
func TestBodyShorterThanAnnounced(t *testing.T) {
	for _, tc := range []struct{ name, resp string }{
		{"content-length", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort"},
		{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nshort\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newRawServer(t, func(nc net.Conn, _ *http.Request) bool {
				_, _ = io.WriteString(nc, tc.resp)
				return false
			})
			hc := client(t)
			for range 2 {
				if _, got, err := send(t, hc, "GET", s.url+"/"); !errors.Is(err, io.ErrUnexpectedEOF) || got != "short" {
					t.Fatalf("body %q, err %v; want short, unexpected EOF", got, err)
				}
			}
			if d := s.dials.Load(); d != 2 {
				t.Fatalf("dials %d, want 2", d)
			}
		})
	}
}

// TestHeaderBounds: a response header, a trailer section or a run of 1xx
// answers that never ends is an error once past a bound, not a memory or
// time sink.
func TestHeaderBounds(t *testing.T) {
	endless := func(head, line string) func(net.Conn, *http.Request) bool {
		return func(nc net.Conn, _ *http.Request) bool {
			if _, err := io.WriteString(nc, head); err != nil {
				return false
			}
			for i := 0; i < 1<<16; i++ { // 64k lines unless the client hangs up first
				if _, err := io.WriteString(nc, line); err != nil {
					return false
				}
			}
			return false
		}
	}
	for _, tc := range []struct {
		name    string
		answer  func(net.Conn, *http.Request) bool
		wantErr string
	}{
		{"header", endless("HTTP/1.1 200 OK\r\n", "X-Pad: "+strings.Repeat("a", 100)+"\r\n"), "header"},
		{"trailer", endless("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n", "X-Pad: "+strings.Repeat("a", 100)+"\r\n"), "trailer"},
		{"1xx", endless("", "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n"), "1xx"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newRawServer(t, tc.answer)
			resp, _, err := send(t, client(t), "GET", s.url+"/")
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || errors.Is(err, context.DeadlineExceeded) {
				var tr http.Header
				if resp != nil {
					tr = resp.Trailer
				}
				t.Fatalf("err %v (trailer of %d fields); want an error about the %s bound", err, len(tr["X-Pad"]), tc.wantErr)
			}
		})
	}
}

// TestIdleConnectionClosedAfterIdleTimeout: an idle pooled connection is
// closed once IdleTimeout passes, with no further request to that host.
func TestIdleConnectionClosedAfterIdleTimeout(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") })
	tr := fastupstream.New(fastupstream.Config{IdleTimeout: 20 * time.Millisecond})
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	if _, got, err := send(t, hc, "GET", s.URL); err != nil || got != "ok" {
		t.Fatalf("%q %v", got, err)
	}
	testwait.Until(t, 10*time.Second, "the idle connection closed by the client", func() bool { return s.closed.Load() == 1 })
	// The pool still works afterwards.
	if _, got, err := send(t, hc, "GET", s.URL); err != nil || got != "ok" || s.dials.Load() != 2 {
		t.Fatalf("%q %v after %d dials", got, err, s.dials.Load())
	}
}

// TestTLSHandshakeTimeout: a server that accepts the connection but never
// answers the TLS handshake fails the dial after the fallback transport's
// TLSHandshakeTimeout, not only when the request's context ends.
func TestTLSHandshakeTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(io.Discard, nc); nc.Close() }()
		}
	}()
	fb := http.DefaultTransport.(*http.Transport).Clone()
	fb.TLSHandshakeTimeout = 20 * time.Millisecond
	fb.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	tr := fastupstream.New(fastupstream.Config{Fallback: fb})
	t.Cleanup(tr.CloseIdleConnections)
	_, _, err = send(t, &http.Client{Transport: tr}, "GET", "https://"+ln.Addr().String()+"/")
	if err == nil || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "handshake timeout") {
		t.Fatalf("err %v; want a TLS handshake timeout", err)
	}
}

// TestTLSOffersOnlyHTTP1: against a server that prefers h2, the handshake
// settles on HTTP/1.1 (the transport must not offer h2, which it cannot
// speak), with SNI set to the URL's host name.
func TestTLSOffersOnlyHTTP1(t *testing.T) {
	var proto, sni atomic.Value
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proto.Store(r.Proto)
		sni.Store(r.TLS.ServerName)
		_, _ = io.WriteString(w, "ok")
	}))
	s.EnableHTTP2 = true
	s.StartTLS()
	t.Cleanup(s.Close)
	fb := s.Client().Transport.(*http.Transport).Clone()
	fb.TLSClientConfig.InsecureSkipVerify = true // the test certificate does not name localhost
	tr := fastupstream.New(fastupstream.Config{Fallback: fb})
	t.Cleanup(tr.CloseIdleConnections)
	url := strings.Replace(s.URL, "127.0.0.1", "localhost", 1)
	if _, got, err := send(t, &http.Client{Transport: tr}, "GET", url+"/"); err != nil || got != "ok" || proto.Load() != "HTTP/1.1" || sni.Load() != "localhost" {
		t.Fatalf("body %q, %v; server saw %v with SNI %v", got, err, proto.Load(), sni.Load())
	}
}

// TestDialControlOnEveryDial: with WithDialControl, the control runs on the
// fast path's dial, on the redial after a stale pooled connection, and on
// the fallback transport's dial (a body of unknown length goes there).
func TestDialControlOnEveryDial(t *testing.T) {
	var served atomic.Int64
	s := newRawServer(t, func(nc net.Conn, req *http.Request) bool {
		n := served.Add(1)
		_, err := io.WriteString(nc, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		return err == nil && n != 1 // the first connection is closed after its answer
	})
	var controls atomic.Int64
	var tr http.RoundTripper = fastupstream.New(fastupstream.Config{}).WithDialControl(func(_, _ string, _ syscall.RawConn) error {
		controls.Add(1)
		return nil
	})
	hc := &http.Client{Transport: tr}
	for range 2 { // the second finds the pooled connection closed and dials again
		if _, got, err := send(t, hc, "GET", s.url+"/"); err != nil || got != "ok" {
			t.Fatalf("%q %v", got, err)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, s.url+"/", io.NopCloser(strings.NewReader("{}"))) // unknown length: fallback
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if d, c := s.dials.Load(), controls.Load(); d != 3 || c != 3 {
		t.Fatalf("%d dials, %d control calls; want 3 and 3", d, c)
	}
	refuse := fastupstream.New(fastupstream.Config{}).WithDialControl(func(_, _ string, _ syscall.RawConn) error {
		return errors.New("refused by policy")
	})
	if _, _, err := send(t, &http.Client{Transport: refuse}, "GET", s.url+"/"); err == nil || !strings.Contains(err.Error(), "refused by policy") {
		t.Fatalf("err %v; want the control's refusal", err)
	}
}

// TestNoGoroutineLeft: cancelled and completed round trips leave no
// goroutine behind once their bodies are closed and the pool is emptied.
func TestNoGoroutineLeft(t *testing.T) {
	s := newRawServer(t, func(nc net.Conn, req *http.Request) bool {
		if req.URL.Path == "/hang" {
			_, _ = io.WriteString(nc, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
			_, _ = io.Copy(io.Discard, nc) // until the client hangs up
			return false
		}
		_, err := io.WriteString(nc, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		return err == nil
	})
	tr := fastupstream.New(fastupstream.Config{})
	hc := &http.Client{Transport: tr}
	if _, _, err := send(t, hc, "GET", s.url+"/"); err != nil { // warm up whatever the runtime starts once
		t.Fatal(err)
	}
	tr.CloseIdleConnections()
	before := runtime.NumGoroutine()
	for range 20 {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.url+"/hang", nil)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 3)
		if _, err := io.ReadFull(resp.Body, buf); err != nil {
			t.Fatal(err)
		}
		cancel()
		if _, err := io.ReadAll(resp.Body); !errors.Is(err, context.Canceled) {
			t.Fatalf("read after cancel: %v", err)
		}
		resp.Body.Close()
		if _, got, err := send(t, hc, "GET", s.url+"/"); err != nil || got != "ok" {
			t.Fatalf("%q %v", got, err)
		}
	}
	tr.CloseIdleConnections()
	testwait.Until(t, 10*time.Second, "goroutines back to the count before", func() bool { return runtime.NumGoroutine() <= before })
}

// TestEarlyAnswerWhileSendingBody: a server that answers before reading a
// large request body (a 413, or a 401 or 429 from a front end) and then
// resets the connection: the caller gets that answer, as with net/http,
// not the write's broken pipe.
func TestEarlyAnswerWhileSendingBody(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3")
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		_, _ = io.WriteString(w, "too big")
	})
	hc := client(t)
	body := strings.Repeat("x", 8<<20) // more than the server drains and the socket buffers hold
	for round := range 3 {
		resp := post(t, hc, context.Background(), s.URL, body)
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge || resp.Header.Get("Retry-After") != "3" || string(got) != "too big" || err != nil {
			t.Fatalf("round %d: %d %q %v %v", round, resp.StatusCode, got, err, resp.Header)
		}
	}
}

// TestFixedProxyGoesToNetHTTP: a fallback whose Proxy is not
// ProxyFromEnvironment (a fixed proxy URL) is asked for every request, with
// no proxy variable set, and a proxied request goes through it.
func TestFixedProxyGoesToNetHTTP(t *testing.T) {
	for _, k := range []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"} {
		t.Setenv(k, "")
	}
	var proxied atomic.Int64
	proxy := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		_, _ = io.WriteString(w, "via proxy "+r.URL.String())
	})
	pu, _ := url.Parse(proxy.URL)
	fb := http.DefaultTransport.(*http.Transport).Clone()
	fb.Proxy = http.ProxyURL(pu)
	tr := fastupstream.New(fastupstream.Config{Fallback: fb})
	t.Cleanup(tr.CloseIdleConnections)
	_, got, err := send(t, &http.Client{Transport: tr}, "GET", "http://upstream.invalid/v1")
	if err != nil || proxied.Load() != 1 || got != "via proxy http://upstream.invalid/v1" {
		t.Fatalf("proxy hits %d, body %q, %v", proxied.Load(), got, err)
	}
}
