package fastupstream

import (
	"bufio"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

const padHead, padTail = "HTTP/1.1 200 OK\r\nX-Pad: ", "\r\nContent-Length: 2\r\n\r\n"

// sectionOf is a 200 answer's header section of exactly n bytes: one X-Pad
// field as long as that takes, then Content-Length: 2.
func sectionOf(n int) string {
	return padHead + strings.Repeat("p", n-len(padHead)-len(padTail)) + padTail
}

// TestHeaderLimitBoundary: a section of maxHeaderBytes is read, one byte
// more is errHeaderTooLarge; a section that is read leaves what follows it
// in the connection's reader.
func TestHeaderLimitBoundary(t *testing.T) {
	for _, tc := range []struct {
		name    string
		size    int
		wantErr error
	}{
		{"fills the read buffer", 8 << 10, nil},
		{"one byte past the read buffer", 8<<10 + 1, nil},
		{"at the limit", maxHeaderBytes, nil},
		{"one byte past the limit", maxHeaderBytes + 1, errHeaderTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := sectionOf(tc.size)
			if len(raw) != tc.size {
				t.Fatalf("section of %d bytes, want %d", len(raw), tc.size)
			}
			c := &conn{br: bufio.NewReaderSize(strings.NewReader(raw+"okHTTP/1.1"), 8192)}
			err := readHeader(c)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			rest, _ := io.ReadAll(c.br)
			pad := len(c.hdr.Peek("X-Pad"))
			if c.hdr.StatusCode() != 200 || c.hdr.ContentLength() != 2 || pad != tc.size-len(padHead)-len(padTail) || string(rest) != "okHTTP/1.1" {
				t.Errorf("status %d, length %d, X-Pad of %d bytes, rest %q", c.hdr.StatusCode(), c.hdr.ContentLength(), pad, rest)
			}
		})
	}
}

// readAnswer reads raw's header as a round trip does and returns it as
// the response carries it, without X-Pad, with what the reader has left.
func readAnswer(raw string) (status, length int, hdr map[string][]string, rest string, err error) {
	c := &conn{br: bufio.NewReaderSize(strings.NewReader(raw), 8192)}
	if err := readHeader(c); err != nil {
		return 0, 0, nil, "", err
	}
	hdr = responseHeader(&c.hdr)
	delete(hdr, "X-Pad")
	b, _ := io.ReadAll(c.br)
	return c.hdr.StatusCode(), c.hdr.ContentLength(), hdr, string(b), nil
}

// FuzzLargeHeader checks that a header section read apart, because a
// 9 KiB field before them pushes it past the read buffer, gives the same
// answer as the same fields read in place: status, framing, fields, what
// is left for the body, and whether it is an error.
func FuzzLargeHeader(f *testing.F) {
	for _, seed := range []string{
		"Content-Type: application/json\r\nContent-Length: 2\r\n\r\nok",
		"Transfer-Encoding: chunked\r\nX-A: 1\r\n\r\n2\r\nok\r\n0\r\n\r\n",
		"Content-Length: 2\r\ncontent-length: 3\r\n\r\nok",
		"Content-Length: 2x\r\n\r\nok",
		"X-A: 1\nX-A: 2\n\nok",
		"X-Folded: a\r\n b\r\nContent-Length: 0\r\n\r\n",
		"Set-Cookie: a=1\r\nSet-Cookie: b=2\r\n\r\nHTTP/1.1 200 OK\r\n\r\n",
		"X-Cut: no end",
	} {
		f.Add(seed)
	}
	pad := "X-Pad: " + strings.Repeat("p", 9<<10) + "\r\n"
	f.Fuzz(func(t *testing.T, fields string) {
		if len(fields) > 8<<10 || strings.HasPrefix(fields, " ") || strings.HasPrefix(fields, "\t") {
			return // in place needs it to fit; a folded first line would join X-Pad
		}
		st, cl, hdr, rest, err := readAnswer("HTTP/1.1 200 OK\r\n" + fields)
		bst, bcl, bhdr, brest, berr := readAnswer("HTTP/1.1 200 OK\r\n" + pad + fields)
		if (err == nil) != (berr == nil) {
			t.Fatalf("in place: %v; read apart: %v", err, berr)
		}
		if err != nil {
			// Which parse error it is may differ: in place fasthttp also
			// sees the bytes after the section.
			if errors.Is(err, errContentLength) != errors.Is(berr, errContentLength) {
				t.Fatalf("in place: %v; read apart: %v", err, berr)
			}
			return
		}
		if st != bst || cl != bcl || rest != brest || !reflect.DeepEqual(hdr, bhdr) {
			t.Fatalf("in place: %d, length %d, %q, rest %q; read apart: %d, length %d, %q, rest %q", st, cl, hdr, rest, bst, bcl, bhdr, brest)
		}
	})
}

// TestHeaderEndAgreed: where fasthttp ends a header section on another
// line than the line scan (here a line of spaces, which it takes for the
// empty line), the answer is an error in place and read apart alike, not a
// body that starts at one or the other.
func TestHeaderEndAgreed(t *testing.T) {
	pad := "X-Pad: " + strings.Repeat("p", 9<<10) + "\r\n"
	for _, fields := range []string{":\n  \n\nok", "X-A: 1\n \n\nok"} {
		for name, raw := range map[string]string{"in place": "HTTP/1.1 200 OK\r\n" + fields, "read apart": "HTTP/1.1 200 OK\r\n" + pad + fields} {
			c := &conn{br: bufio.NewReaderSize(strings.NewReader(raw), 8192)}
			if err := readHeader(c); !errors.Is(err, errHeaderEnd) {
				t.Errorf("%s, %q: err %v, want errHeaderEnd", name, fields, err)
			}
		}
	}
}

// TestFoldedHeaderKeepsBody: a section with folded lines (obs-fold), which
// fasthttp joins by moving the bytes after them in the buffer it parses,
// leaves the body and what follows it intact, in place and read apart.
func TestFoldedHeaderKeepsBody(t *testing.T) {
	pad := "X-Pad: " + strings.Repeat("p", 9<<10) + "\r\n"
	for _, tc := range []struct{ name, fields, want string }{
		{"CRLF, space", "X-Folded: a\r\n b\r\nContent-Length: 5\r\n\r\n", "a b"},
		{"CRLF, tab and space", "X-Folded: a\r\n\tb\r\n c\r\nContent-Length: 5\r\n\r\n", "a b c"},
		{"bare LF", "X-Folded: a\n b\nContent-Length: 5\n\n", "a b"},
		{"last field", "Content-Length: 5\r\nX-Folded: a\r\n  b\r\n\r\n", "a  b"},
	} {
		for name, raw := range map[string]string{"in place": "HTTP/1.1 200 OK\r\n" + tc.fields, "read apart": "HTTP/1.1 200 OK\r\n" + pad + tc.fields} {
			st, cl, hdr, rest, err := readAnswer(raw + "helloHTTP/1.1")
			if err != nil || st != 200 || cl != 5 || rest != "helloHTTP/1.1" || len(hdr["X-Folded"]) != 1 || hdr["X-Folded"][0] != tc.want {
				t.Errorf("%s, %s: err %v, status %d, length %d, X-Folded %q, rest %q; want 200, 5, %q, %q", tc.name, name, err, st, cl, hdr["X-Folded"], rest, tc.want, "helloHTTP/1.1")
			}
		}
	}
}
