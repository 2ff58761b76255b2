package fastupstream_test

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"runtime"
	"testing"
)

// TestStreamAllocatesLittle: a stream on a new upstream connection
// allocates its 8 KiB read buffer and little else: no write buffer stays
// with the connection (with a 4 KiB one of its own it was 17.8 KB a
// stream in all; 13.7 KB without, 15.0 KB under -race).
func TestStreamAllocatesLittle(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	defer close(release)
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer nc.Close()
				var buf [512]byte // the request, read without a bufio.Reader of its own
				for seen := []byte(nil); !bytes.Contains(seen, []byte("\r\n\r\n")); {
					n, err := nc.Read(buf[:])
					if err != nil {
						return
					}
					seen = append(seen[max(0, len(seen)-3):], buf[:n]...)
				}
				_, _ = io.WriteString(nc, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n6\r\ndata:\n\r\n")
				<-release
			}()
		}
	}()
	defer ln.Close()
	hc := client(t)
	url := "http://" + ln.Addr().String() + "/v1/chat/completions"
	var first [8]byte
	open := func(n int) []*http.Response {
		resps := make([]*http.Response, 0, n)
		for range n {
			resp, err := hc.Get(url)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadFull(resp.Body, first[:6]); err != nil {
				t.Fatal(err)
			}
			resps = append(resps, resp)
		}
		return resps
	}
	closeAll := func(resps []*http.Response) {
		for _, r := range resps {
			r.Body.Close()
		}
	}
	warm := open(8)
	defer closeAll(warm)
	const n = 100
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	resps := open(n)
	runtime.ReadMemStats(&after)
	defer closeAll(resps)
	perStream := (after.TotalAlloc - before.TotalAlloc) / n
	t.Logf("%d bytes allocated per stream", perStream)
	if perStream > 16<<10 {
		t.Errorf("%d bytes allocated per stream on a new connection, want at most 16 KiB", perStream)
	}
}
