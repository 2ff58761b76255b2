package fastupstream

import (
	"bufio"
	"bytes"
	"net/http"
	"net/textproto"
	"reflect"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

// parseBlock reads an answer's header from raw as a round trip does.
func parseBlock(raw string) (*fasthttp.ResponseHeader, error) {
	c := &conn{br: bufio.NewReaderSize(strings.NewReader(raw), 8192)}
	if err := readHeader(c); err != nil {
		return nil, err
	}
	return &c.hdr, nil
}

// headerOneByOne is the conversion responseHeader replaced, a string per
// name and value, with net/http's canonical names.
func headerOneByOne(h *fasthttp.ResponseHeader) http.Header {
	hdr := http.Header{}
	h.VisitAll(func(k, v []byte) {
		if key := textproto.CanonicalMIMEHeaderKey(string(k)); key != "Transfer-Encoding" {
			hdr[key] = append(hdr[key], string(v))
		}
	})
	return hdr
}

func TestResponseHeader(t *testing.T) {
	for _, tc := range []struct {
		name  string
		block string
		want  http.Header
	}{
		{"canonical names", "content-type: application/json\r\nx-request-id: req_1\r\nContent-Length: 2\r\n", http.Header{
			"Content-Type": {"application/json"}, "X-Request-Id": {"req_1"}, "Content-Length": {"2"}}},
		{"repeated names keep their order", "Set-Cookie: a=1\r\nX-A: 1\r\nset-cookie: b=2\r\nX-A: 2\r\nX-A: 3\r\nContent-Length: 0\r\n", http.Header{
			"Set-Cookie": {"a=1", "b=2"}, "X-A": {"1", "2", "3"}, "Content-Length": {"0"}}},
		{"chunked leaves out Transfer-Encoding", "Transfer-Encoding: chunked\r\nX-B: b\r\n", http.Header{"X-B": {"b"}}},
		{"names net/http would change", "-a: 1\r\nx_y-z: 2\r\nContent-Length: 0\r\n", http.Header{"-A": {"1"}, "X_y-Z": {"2"}, "Content-Length": {"0"}}},
		{"empty value", "X-Empty:\r\nContent-Length: 0\r\n", http.Header{"X-Empty": {""}, "Content-Length": {"0"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := parseBlock("HTTP/1.1 200 OK\r\n" + tc.block + "\r\n")
			if err != nil {
				t.Fatal(err)
			}
			got := responseHeader(h)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("header %v, want %v", got, tc.want)
			}
			// Appending to one field's values must not change another's.
			for k := range got {
				got[k] = append(got[k], "appended")
			}
			for k, vs := range got {
				if len(vs) != len(tc.want[k])+1 || !reflect.DeepEqual(vs[:len(vs)-1], tc.want[k]) {
					t.Errorf("after appending to every field, %s is %q", k, vs)
				}
			}
		})
	}
}

var headerSink http.Header

// TestResponseHeaderAllocations: the conversion costs three allocations
// for an answer of 20 fields (one string, one slice, the map), not two a
// field.
func TestResponseHeaderAllocations(t *testing.T) {
	var b strings.Builder
	b.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: application/json\r\n")
	for i := range 18 {
		b.WriteString("X-Field-" + string(rune('a'+i)) + ": value\r\n")
	}
	h, err := parseBlock(b.String() + "\r\n")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(responseHeader(h)); n != 20 {
		t.Fatalf("%d fields, want 20", n)
	}
	// A map of 20 entries takes more than one allocation itself: allow
	// what make(http.Header, 20) costs on its own.
	mapAllocs := testing.AllocsPerRun(100, func() { headerSink = make(http.Header, 20) })
	if got := testing.AllocsPerRun(100, func() { headerSink = responseHeader(h) }); got > 2+mapAllocs {
		t.Errorf("%.0f allocations, want at most %.0f (a string, a slice, the map's %.0f)", got, 2+mapAllocs, mapAllocs)
	}
}

// singly are the fields fasthttp keeps one value of.
var singly = map[string]bool{"Content-Type": true, "Content-Encoding": true, "Server": true}

// FuzzResponseHeader checks the header a round trip builds against the
// one-string-per-field conversion it replaced (the same for every header
// fasthttp reads), and against net/http's parser for every header both
// accept: the same names and values, but for the framing fields (net/http
// moves them out of the map, and the transport reads them from fasthttp),
// the fields fasthttp holds one value of, names with a space and folded
// lines. Each input is checked as it is and after a 9 KiB field that pushes
// it past the read buffer (parsed apart): a seed that large itself would
// have the fuzzer spend its time minimizing it.
func FuzzResponseHeader(f *testing.F) {
	for _, seed := range []string{
		"Content-Type: application/json\r\nContent-Length: 2\r\n",
		"content-type: text/event-stream\r\ncache-control: no-cache\r\nTransfer-Encoding: chunked\r\n",
		"Set-Cookie: a=1\r\nSet-Cookie: b=2\r\nX-A: 1\r\nx-a: 2\r\nContent-Length: 0\r\n",
		"X-Empty:\r\nX-Spaces:   v  \r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n",
		"Server: cloudflare\r\nCf-Ray: 8f0123-FRA\r\nOpenai-Processing-Ms: 412\r\nX-Ratelimit-Remaining-Tokens: 1999000\r\n",
		"X-Folded: a\r\n b\r\nContent-Length: 1\r\n",
		"x_under: 1\r\nX-\xff: 2\r\n",
	} {
		f.Add(seed)
	}
	pad := "X-Pad: " + strings.Repeat("p", 9<<10) + "\r\n"
	f.Fuzz(func(t *testing.T, fields string) {
		checkHeader(t, "HTTP/1.1 200 OK\r\n"+fields+"\r\n")
		checkHeader(t, "HTTP/1.1 200 OK\r\n"+pad+fields+"\r\n")
	})
}

// checkHeader is FuzzResponseHeader's check of one answer.
func checkHeader(t *testing.T, raw string) {
	t.Helper()
	h, err := parseBlock(raw)
	if err != nil {
		return
	}
	got := responseHeader(h)
	if want := headerOneByOne(h); !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
		t.Fatalf("header %.300q, the one-by-one conversion gives %.300q", got, want)
	}
	if strings.Contains(raw, "\n ") || strings.Contains(raw, "\n\t") {
		return // obs-fold (RFC 9112 5.2, deprecated): net/http and fasthttp join the lines differently
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader([]byte(raw))), nil)
	if err != nil {
		return
	}
	want := resp.Header
	for k, vs := range want {
		if strings.ContainsAny(k, " ") {
			return // net/http keeps such a name as sent; fasthttp folds its case
		}
		// fasthttp holds these once, the last one read, and leaves
		// them out when that is empty (net/http keeps every line).
		if singly[k] {
			want[k] = vs[len(vs)-1:]
			if vs[len(vs)-1] == "" {
				delete(want, k)
			}
		}
	}
	for _, k := range []string{"Transfer-Encoding", "Content-Length", "Connection"} {
		delete(want, k)
		delete(got, k)
	}
	if !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
		t.Fatalf("header %.300q, net/http reads %.300q", got, want)
	}
}
