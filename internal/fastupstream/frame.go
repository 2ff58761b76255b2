package fastupstream

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"strings"
)

// max1xx bounds the informational answers skipped before the final one: a
// server sending 103s without end would otherwise hold the round trip until
// its context ends.
const max1xx = 32

var (
	errTooMany1xx      = fmt.Errorf("fastupstream: more than %d 1xx informational responses", max1xx)
	errContentLength   = errors.New("fastupstream: response has conflicting or invalid Content-Length headers")
	errTLSHandshake    = errors.New("fastupstream: TLS handshake timeout")
	errReqBody         = errors.New("fastupstream: reading the request body")
	errTrailerTooLarge = errors.New("fastupstream: response trailer does not fit the read buffer")
)

// headerBlock returns the next header section buffered in br, through its
// empty line, without consuming it; it waits until the section has arrived.
// The section must fit br's buffer: that is the bound on a header (and a
// trailer) an upstream can make the client hold. It returns io.EOF when
// the connection ends before any byte, and bufio.ErrBufferFull when the
// section does not fit.
func headerBlock(br *bufio.Reader) ([]byte, error) {
	from := 0
	for n := 1; ; n = br.Buffered() + 1 {
		b, err := br.Peek(n)
		if err == nil {
			b, _ = br.Peek(br.Buffered())
		}
		if i := blockEnd(b, from); i > 0 {
			return b[:i], nil
		}
		if err != nil {
			if len(b) > 0 && err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		from = max(len(b)-2, 0)
	}
}

// blockEnd is the length of the header section at the start of b (ending
// in an empty line, CRLF or bare LF), or 0 when b does not hold all of it;
// the empty line is searched for from b[from:].
func blockEnd(b []byte, from int) int {
	switch {
	case bytes.HasPrefix(b, []byte("\r\n")):
		return 2
	case len(b) > 0 && b[0] == '\n':
		return 1
	}
	for i := from; i < len(b); {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return 0
		}
		i += j + 1
		if bytes.HasPrefix(b[i:], []byte("\r\n")) {
			return i + 2
		}
		if i < len(b) && b[i] == '\n' {
			return i + 1
		}
	}
	return 0
}

// checkContentLength refuses a header section whose Content-Length fields
// disagree (RFC 9112 6.3: the framing is then unknown; fasthttp would use
// the last one) or are not a decimal number, as net/http does.
func checkContentLength(block []byte) error {
	var first []byte
	for len(block) > 0 {
		line := block
		if i := bytes.IndexByte(block, '\n'); i >= 0 {
			line, block = block[:i], block[i+1:]
		} else {
			block = nil
		}
		const name = "content-length:"
		if len(line) < len(name) || line[0]|0x20 != 'c' || !bytes.EqualFold(line[:len(name)], []byte(name)) {
			continue
		}
		v := bytes.TrimSpace(line[len(name):])
		if len(v) == 0 || bytes.IndexFunc(v, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
			return errContentLength
		}
		if first != nil && !bytes.Equal(first, v) {
			return errContentLength
		}
		first = v
	}
	return nil
}

// hasClose reports whether a Connection field lists "close" (any case, in
// a list). fasthttp only sees an exact "Connection: close".
func hasClose(vs []string) bool {
	for _, v := range vs {
		for tok := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(tok), "close") {
				return true
			}
		}
	}
	return false
}

// readTrailer consumes the trailer section after the last chunk, bounded
// like a header, into tr (nil when there is none).
func readTrailer(br *bufio.Reader) (http.Header, error) {
	block, err := headerBlock(br)
	if errors.Is(err, bufio.ErrBufferFull) {
		return nil, errTrailerTooLarge
	}
	if err != nil {
		return nil, err
	}
	var tr http.Header
	if len(block) > 2 {
		h, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(block))).ReadMIMEHeader()
		if err != nil {
			return nil, fmt.Errorf("fastupstream: response trailer: %w", err)
		}
		tr = http.Header(h)
	}
	_, _ = br.Discard(len(block))
	return tr, nil
}
