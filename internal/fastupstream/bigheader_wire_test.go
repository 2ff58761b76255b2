package fastupstream_test

import (
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// manyFields is a header block of n fields X-Pad-<i> of about 100 bytes
// each, with their values.
func manyFields(n int) (string, map[string]string) {
	var b strings.Builder
	want := map[string]string{}
	for i := range n {
		k, v := "X-Pad-"+strconv.Itoa(i), strings.Repeat(string(rune('a'+i%26)), 80)+strconv.Itoa(i)
		b.WriteString(k + ": " + v + "\r\n")
		want[k] = v
	}
	return b.String(), want
}

// TestLargeHeader: a header section past the 8 KiB read buffer, in many
// fields or one long one, after a 1xx or itself a 1xx, is read whole; the
// body after it (by length or chunked) is intact, and the connection
// carries the next round trip.
func TestLargeHeader(t *testing.T) {
	fields20k, want20k := manyFields(200) // ~20 KiB
	fields60k, want60k := manyFields(600) // ~60 KiB
	long60k := strings.Repeat("v", 60<<10)
	const byLength, chunked = "Content-Length: 2\r\n\r\nok", "Transfer-Encoding: chunked\r\n\r\n1\r\no\r\n1\r\nk\r\n0\r\n\r\n"
	for _, tc := range []struct {
		name, resp string
		want       map[string]string
		wantLen    int64
	}{
		{"20 KiB of fields, by length", "HTTP/1.1 200 OK\r\n" + fields20k + byLength, want20k, 2},
		{"20 KiB of fields, chunked", "HTTP/1.1 200 OK\r\n" + fields20k + chunked, want20k, -1},
		{"60 KiB of fields, by length", "HTTP/1.1 200 OK\r\n" + fields60k + byLength, want60k, 2},
		{"60 KiB of fields, chunked", "HTTP/1.1 200 OK\r\n" + fields60k + chunked, want60k, -1},
		{"one 60 KiB value, by length", "HTTP/1.1 200 OK\r\nX-Long: " + long60k + "\r\n" + byLength, map[string]string{"X-Long": long60k}, 2},
		{"one 60 KiB value, chunked", "HTTP/1.1 200 OK\r\nX-Long: " + long60k + "\r\n" + chunked, map[string]string{"X-Long": long60k}, -1},
		{"100 Continue then 60 KiB", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n" + fields60k + byLength, want60k, 2},
		{"103 then 20 KiB, chunked", "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\nHTTP/1.1 200 OK\r\n" + fields20k + chunked, want20k, -1},
		{"20 KiB 103 then a small answer", "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n" + fields20k + "\r\nHTTP/1.1 200 OK\r\n" + byLength, nil, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newRawServer(t, answerWith(tc.resp))
			hc := client(t)
			for round := range 2 {
				resp, got, err := send(t, hc, "GET", s.url+"/")
				if err != nil || got != "ok" || resp.StatusCode != http.StatusOK || resp.ContentLength != tc.wantLen {
					t.Fatalf("round %d: body %q, err %v, resp %+v; want 200, %q, ContentLength %d", round, got, err, resp, "ok", tc.wantLen)
				}
				if resp.Header.Get("Link") != "" {
					t.Fatalf("round %d: the 1xx's Link field is in the final header", round)
				}
				pads := 0
				for k := range resp.Header {
					if strings.HasPrefix(k, "X-") {
						pads++
					}
				}
				if pads != len(tc.want) {
					t.Fatalf("round %d: %d X- fields, want %d", round, pads, len(tc.want))
				}
				for k, v := range tc.want {
					if vs := resp.Header[k]; len(vs) != 1 || vs[0] != v {
						t.Fatalf("round %d: %s is %.40q (%d values), want %.40q", round, k, vs, len(vs), v)
					}
				}
			}
			if d := s.dials.Load(); d != 1 {
				t.Errorf("2 round trips dialed %d connections, want 1", d)
			}
		})
	}
}

// TestHeaderPastLimit: a header section past 64 KiB, in many fields or in
// one, fails with an error naming the bound, and that connection is not
// used again (though the server would go on answering on it).
func TestHeaderPastLimit(t *testing.T) {
	fields100k, _ := manyFields(1000)
	for _, tc := range []struct{ name, resp string }{
		{"100 KiB of fields", "HTTP/1.1 200 OK\r\n" + fields100k + "Content-Length: 2\r\n\r\nok"},
		{"one 100 KiB value", "HTTP/1.1 200 OK\r\nX-Long: " + strings.Repeat("v", 100<<10) + "\r\nContent-Length: 2\r\n\r\nok"},
		{"100 KiB after a 103", "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\nHTTP/1.1 200 OK\r\n" + fields100k + "Content-Length: 2\r\n\r\nok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			s := newRawServer(t, func(nc net.Conn, _ *http.Request) bool {
				n++
				resp := "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
				if n == 1 {
					resp = tc.resp
				}
				_, err := nc.Write([]byte(resp))
				return err == nil
			})
			hc := client(t)
			_, _, err := send(t, hc, "GET", s.url+"/")
			if err == nil || !strings.Contains(err.Error(), "65536-byte limit") {
				t.Fatalf("err %v, want one naming the 65536-byte limit", err)
			}
			if _, got, err := send(t, hc, "GET", s.url+"/"); err != nil || got != "ok" {
				t.Fatalf("after the failure: %q, %v", got, err)
			}
			if d := s.dials.Load(); d != 2 {
				t.Errorf("%d dials, want 2: the connection of the failed answer must not be reused", d)
			}
		})
	}
}

// TestLargeHeaderCutNotRetried: a pooled connection that ends inside a
// header section too large for the read buffer has answered in part, so
// the request is not sent again as if the connection had been stale.
func TestLargeHeaderCutNotRetried(t *testing.T) {
	fields20k, _ := manyFields(200)
	n := 0
	s := newRawServer(t, func(nc net.Conn, _ *http.Request) bool {
		n++
		if n == 2 {
			_, _ = nc.Write([]byte("HTTP/1.1 200 OK\r\n" + fields20k))
			return false
		}
		_, err := nc.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))
		return err == nil
	})
	hc := client(t)
	if _, got, err := send(t, hc, "GET", s.url+"/"); err != nil || got != "ok" {
		t.Fatalf("first round trip: %q, %v", got, err)
	}
	_, got, err := send(t, hc, "GET", s.url+"/")
	if err == nil || !strings.Contains(err.Error(), "inside a response header") {
		t.Fatalf("body %q, err %v; want the cut header's error", got, err)
	}
	if d, r := s.dials.Load(), s.requests.Load(); d != 1 || r != 2 {
		t.Errorf("%d dials, %d requests; want 1 and 2 (no retry)", d, r)
	}
}
