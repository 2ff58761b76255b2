package fastupstream_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/internal/fastupstream"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// server counts the connections it accepts and closes.
type server struct {
	*httptest.Server
	dials, closed atomic.Int64
}

func newServer(t *testing.T, h http.HandlerFunc) *server {
	s := &server{Server: httptest.NewUnstartedServer(h)}
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			s.dials.Add(1)
		case http.StateClosed, http.StateHijacked:
			s.closed.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func client(t testing.TB) *http.Client {
	tr := fastupstream.New(fastupstream.Config{})
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func post(t *testing.T, hc *http.Client, ctx context.Context, url, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Api-Key", "k")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestRoundTripBodies(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB
	cases := []struct {
		name    string
		handler http.HandlerFunc
		want    string
		length  int64
	}{
		{"content-length", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "7")
			w.Header().Set("X-Request-Id", "req_1")
			w.Header().Set("Content-Length", "5")
			_, _ = w.Write([]byte("hello"))
		}, "hello", 5},
		{"chunked", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "7")
			w.Header().Set("X-Request-Id", "req_1")
			for i := range 3 {
				fmt.Fprintf(w, "part%d;", i)
				w.(http.Flusher).Flush()
			}
		}, "part0;part1;part2;", -1},
		{"large", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "7")
			w.Header().Set("X-Request-Id", "req_1")
			_, _ = io.WriteString(w, big)
		}, big, -1},
		{"echo", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "7")
			w.Header().Set("X-Request-Id", "req_1")
			b, _ := io.ReadAll(r.Body)
			fmt.Fprintf(w, "%s %s %s %s %d %s", r.Method, r.URL.RequestURI(), r.Header.Get("Content-Type"), r.Header.Get("X-Api-Key"), r.ContentLength, b)
		}, "POST /v1/x?a=b application/json k 7 {\"a\":1}", -2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, tc.handler)
			hc := client(t)
			for round := range 3 { // the connection is reused
				resp := post(t, hc, context.Background(), s.URL+"/v1/x?a=b", `{"a":1}`)
				got, err := io.ReadAll(resp.Body)
				if err != nil {
					t.Fatal(err)
				}
				if n, err := resp.Body.Read(make([]byte, 1)); n != 0 || err != io.EOF {
					t.Fatalf("a Read after the end: %d, %v; want 0, EOF", n, err)
				}
				resp.Body.Close()
				if string(got) != tc.want {
					t.Fatalf("round %d body %.80q, want %.80q", round, got, tc.want)
				}
				if resp.StatusCode != 200 || resp.Status != "200 OK" || resp.Header.Get("Retry-After") != "7" || resp.Header.Get("X-Request-Id") != "req_1" {
					t.Fatalf("status %q header %v", resp.Status, resp.Header)
				}
				if tc.length != -2 && resp.ContentLength != tc.length && !(tc.length == -1 && resp.ContentLength == int64(len(tc.want))) {
					t.Fatalf("ContentLength %d, want %d", resp.ContentLength, tc.length)
				}
			}
			if d := s.dials.Load(); d != 1 {
				t.Fatalf("3 sequential requests dialed %d connections, want 1", d)
			}
		})
	}
}

// TestStreamArrivesAsSent: each event is readable before the server sends
// the next one (the server waits for the client to confirm it read it).
func TestStreamArrivesAsSent(t *testing.T) {
	next := make(chan struct{})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 3 {
			fmt.Fprintf(w, "data: %d\n\n", i)
			w.(http.Flusher).Flush()
			<-next
		}
	})
	resp := post(t, client(t), context.Background(), s.URL, "{}")
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for i := range 3 {
		line, err := br.ReadString('\n')
		if err != nil || line != fmt.Sprintf("data: %d\n", i) {
			t.Fatalf("event %d: %q %v", i, line, err)
		}
		_, _ = br.ReadString('\n')
		next <- struct{}{}
	}
	if _, err := io.ReadAll(br); err != nil {
		t.Fatal(err)
	}
}

// TestCancel: cancelling the context before the first byte or mid-stream
// ends the round trip or the blocked read with the context's error, and the
// upstream connection is closed, not pooled.
func TestCancel(t *testing.T) {
	hold := make(chan struct{})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body) // then the server notices the client closing
		if r.URL.Path == "/stream" {
			_, _ = io.WriteString(w, "data: 1\n\n")
			w.(http.Flusher).Flush()
		}
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	})
	t.Cleanup(func() { close(hold) }) // before s.Close, which waits for handlers
	hc := client(t)

	t.Run("before first byte", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/slow", strings.NewReader("{}"))
		errc := make(chan error, 1)
		go func() {
			_, err := hc.Do(req)
			errc <- err
		}()
		testwait.Until(t, 10*time.Second, "request arrived", func() bool { return s.dials.Load() >= 1 })
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v, want context.Canceled", err)
		}
		testwait.Until(t, 10*time.Second, "upstream connection closed", func() bool { return s.closed.Load() >= 1 })
	})
	t.Run("mid stream", func(t *testing.T) {
		before := s.closed.Load()
		ctx, cancel := context.WithCancel(context.Background())
		resp := post(t, hc, ctx, s.URL+"/stream", "{}")
		buf := make([]byte, 9)
		if _, err := io.ReadFull(resp.Body, buf); err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 1)
		go func() {
			_, err := resp.Body.Read(buf)
			errc <- err
		}()
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("blocked read ended with %v, want context.Canceled", err)
		}
		resp.Body.Close()
		testwait.Until(t, 10*time.Second, "upstream connection closed", func() bool { return s.closed.Load() > before })
	})
	t.Run("close mid body", func(t *testing.T) {
		before, dials := s.closed.Load(), s.dials.Load()
		resp := post(t, hc, context.Background(), s.URL+"/stream", "{}")
		buf := make([]byte, 4)
		if _, err := io.ReadFull(resp.Body, buf); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		testwait.Until(t, 10*time.Second, "upstream connection closed", func() bool { return s.closed.Load() > before })
		if s.dials.Load() != dials+1 {
			t.Fatalf("dials %d, want %d (a new connection for this request)", s.dials.Load(), dials+1)
		}
	})
}

// TestRedirectsFollowed: the http.Client above the transport follows a
// redirect to the new path.
func TestRedirectsFollowed(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusTemporaryRedirect)
			return
		}
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %s", r.URL.Path, b)
	})
	resp := post(t, client(t), context.Background(), s.URL+"/old", "body")
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(got) != "/new body" {
		t.Fatalf("got %q", got)
	}
}

// TestIdleClosedConnectionNotReused: a pooled connection the server closed
// while idle is seen closed before use: every request, a plain POST too, goes
// out once, on a new connection.
func TestIdleClosedConnectionNotReused(t *testing.T) {
	var requests atomic.Int64
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) { requests.Add(1); _, _ = io.WriteString(w, "ok") })
	hc := client(t)
	resp := post(t, hc, context.Background(), s.URL, "{}")
	_, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	s.CloseClientConnections()
	testwait.Until(t, 10*time.Second, "server closed the idle connection", func() bool { return s.closed.Load() == 1 })
	resp = post(t, hc, context.Background(), s.URL, "{}")
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(got) != "ok" || s.dials.Load() != 2 || requests.Load() != 2 {
		t.Fatalf("got %q after %d dials, %d requests served; want ok, 2, 2", got, s.dials.Load(), requests.Load())
	}
}

// TestStalePooledConnectionRetried: a pooled connection that passes the
// idle check but is closed after the request was written, with no answer,
// is sent again on a new connection only when the request is safe to repeat
// (a GET, a POST with an idempotency key). A plain POST is not sent twice:
// its error is returned, for dispatch to decide.
func TestStalePooledConnectionRetried(t *testing.T) {
	for _, tc := range []struct {
		name      string
		method    string
		key       string
		wantRetry bool
	}{
		{"get", http.MethodGet, "", true},
		{"post with idempotency key", http.MethodPost, "k1", true},
		{"post", http.MethodPost, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
			var dials, requests atomic.Int64
			go func() {
				for {
					nc, err := ln.Accept()
					if err != nil {
						return
					}
					n := dials.Add(1)
					go func() {
						defer nc.Close()
						br := bufio.NewReader(nc)
						for i := 0; ; i++ {
							req, err := http.ReadRequest(br)
							if err != nil {
								return
							}
							_, _ = io.Copy(io.Discard, req.Body)
							requests.Add(1)
							if n == 1 && i == 1 {
								return // read the second request on the first connection, then drop it unanswered
							}
							_, _ = io.WriteString(nc, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
						}
					}()
				}
			}()
			url := "http://" + ln.Addr().String() + "/"
			hc := client(t)
			send := func() (*http.Response, error) {
				var body io.Reader
				if tc.method == http.MethodPost {
					body = strings.NewReader("{}")
				}
				req, err := http.NewRequest(tc.method, url, body)
				if err != nil {
					return nil, err
				}
				if tc.key != "" {
					req.Header.Set("Idempotency-Key", tc.key)
				}
				return hc.Do(req)
			}
			resp, err := send()
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			resp, err = send()
			if !tc.wantRetry {
				if err == nil {
					resp.Body.Close()
					t.Fatalf("a plain POST dropped unanswered was sent again (%d dials, %d requests)", dials.Load(), requests.Load())
				}
				if dials.Load() != 1 || requests.Load() != 2 {
					t.Fatalf("%d dials, %d requests after a dropped POST; want 1 and 2", dials.Load(), requests.Load())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(got) != "ok" || dials.Load() != 2 || requests.Load() != 3 {
				t.Fatalf("got %q after %d dials, %d requests; want ok, 2, 3", got, dials.Load(), requests.Load())
			}
		})
	}
}

// TestTLS: https goes over TLS with the fallback transport's roots and the
// URL's host name, and the connection is reused.
func TestTLS(t *testing.T) {
	var dials atomic.Int64
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "tls=%v", r.TLS != nil)
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			dials.Add(1)
		}
	}
	s.StartTLS()
	t.Cleanup(s.Close)
	fb := s.Client().Transport.(*http.Transport).Clone()
	tr := fastupstream.New(fastupstream.Config{Fallback: fb})
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	for range 2 {
		resp := post(t, hc, context.Background(), s.URL, "{}")
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != "tls=true" {
			t.Fatalf("got %q", got)
		}
	}
	if dials.Load() != 1 {
		t.Fatalf("%d dials, want 1", dials.Load())
	}
	// Without the test server's root the handshake fails.
	plain := &http.Client{Transport: fastupstream.New(fastupstream.Config{})}
	if _, err := plain.Get(s.URL); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("untrusted certificate accepted: %v", err)
	}
}

// TestProxyGoesToNetHTTP: with a proxy variable set, a request the proxy
// function sends to a proxy goes through the fallback transport, which uses it.
func TestProxyGoesToNetHTTP(t *testing.T) {
	var proxied atomic.Int64
	proxy := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		_, _ = io.WriteString(w, "via proxy "+r.URL.String())
	})
	t.Setenv("HTTP_PROXY", proxy.URL)
	pu, _ := url.Parse(proxy.URL)
	fb := http.DefaultTransport.(*http.Transport).Clone()
	fb.Proxy = http.ProxyURL(pu)
	hc := &http.Client{Transport: fastupstream.New(fastupstream.Config{Fallback: fb})}
	resp, err := hc.Get("http://upstream.example/v1")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if proxied.Load() != 1 || string(got) != "via proxy http://upstream.example/v1" {
		t.Fatalf("proxy hits %d, body %q", proxied.Load(), got)
	}
}
