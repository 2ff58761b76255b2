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
	for name, raw := range map[string]string{
		"in place": bad + "\r\nok",
		"folded":   bad + "X-Fold: a\r\n b\r\n\r\nok",
		"large":    bad + "X-Pad: " + strings.Repeat("p", 9<<10) + "\r\n\r\nok",
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
