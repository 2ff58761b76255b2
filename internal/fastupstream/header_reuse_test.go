package fastupstream_test

import (
	"net"
	"net/http"
	"reflect"
	"strconv"
	"testing"
)

// TestHeaderOutlivesConnectionReuse: an answer's header stays as it was
// after its connection carries the next round trip, which reads into the
// same header and read buffers: no name or value may point into them.
func TestHeaderOutlivesConnectionReuse(t *testing.T) {
	n := 0
	s := newRawServer(t, func(nc net.Conn, _ *http.Request) bool {
		n++
		v := strconv.Itoa(n)
		_, err := nc.Write([]byte("HTTP/1.1 200 OK\r\nX-Round: " + v + v + v + "\r\nx-round-" + v + ": r\r\nContent-Length: 0\r\n\r\n"))
		return err == nil
	})
	hc := client(t)
	first, _, err := send(t, hc, "GET", s.url+"/")
	if err != nil {
		t.Fatal(err)
	}
	want := first.Header.Clone()
	for range 3 {
		if _, _, err := send(t, hc, "GET", s.url+"/"); err != nil {
			t.Fatal(err)
		}
	}
	if d := s.dials.Load(); d != 1 {
		t.Fatalf("4 round trips dialed %d connections, want 1 (the test needs the reuse)", d)
	}
	if !reflect.DeepEqual(first.Header, want) || first.Header.Get("X-Round") != "111" {
		t.Errorf("the first answer's header became %v, was %v", first.Header, want)
	}
}
