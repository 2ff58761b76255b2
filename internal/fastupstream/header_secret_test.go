package fastupstream

import (
	"bufio"
	"errors"
	"strings"
	"testing"
)

// TestMalformedHeaderErrorQuotesNothing: a response header section
// fasthttp cannot parse fails with errMalformedHeader, whose text holds
// none of the section's bytes (a cookie, the body), on the in-place path,
// the folded one and the one past the connection's buffer.
func TestMalformedHeaderErrorQuotesNothing(t *testing.T) {
	const secret = "sess=SECRET-COOKIE-7f3a"
	bad := "HTTP/1.1 abc OK\r\nSet-Cookie: " + secret + "\r\nContent-Length: 2\r\n"
	noColon := "HTTP/1.1 200 OK\r\nSet-Cookie: " + secret + "\r\nX-No-Colon\r\n"
	for name, raw := range map[string]string{
		"in place": bad + "\r\nok",
		"folded":   bad + "X-Fold: a\r\n b\r\n\r\nok",
		"large":    bad + "X-Pad: " + strings.Repeat("p", 9<<10) + "\r\n\r\nok",
		// A last field line without a colon: fasthttp reads on past the
		// section, and its error (wrapping io.EOF) quoted it.
		"no colon in place": noColon + "\r\n",
		"no colon folded":   "HTTP/1.1 200 OK\r\nX-Fold: a\r\n b\r\n" + noColon[len("HTTP/1.1 200 OK\r\n"):] + "\r\n",
		"no colon large":    "HTTP/1.1 200 OK\r\nX-Pad: " + strings.Repeat("p", 9<<10) + "\r\n" + noColon[len("HTTP/1.1 200 OK\r\n"):] + "\r\n",
	} {
		c := &conn{br: bufio.NewReaderSize(strings.NewReader(raw), 8192)}
		err := readHeader(c)
		if !errors.Is(err, errMalformedHeader) {
			t.Errorf("%s: %v, want errMalformedHeader", name, err)
			continue
		}
		if strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%s: error quotes the header: %v", name, err)
		}
	}
}
