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
// the connection ends before any byte, bufio.ErrBufferFull when the section
// does not fit, and errContentLength for Content-Length fields that are not
// a number or disagree (RFC 9112 6.3: the framing is then unknown, and
// fasthttp would take the last one; net/http refuses them too).
func headerBlock(br *bufio.Reader) ([]byte, error) {
	var sc blockScan
	for n := 1; ; n = br.Buffered() + 1 {
		b, err := br.Peek(n)
		if err == nil {
			b, _ = br.Peek(br.Buffered())
		}
		end, serr := sc.scan(b)
		if serr != nil {
			return nil, serr
		}
		if end > 0 {
			return b[:end], nil
		}
		if err != nil {
			if len(b) > 0 && err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// blockScan walks a header section line by line as it arrives, in one pass
// for both its end and its Content-Length fields. Offsets are from the
// section's first byte, which stays b[0] from one Peek to the next.
type blockScan struct {
	next           int // where the first line not yet scanned starts
	clStart, clEnd int // the first Content-Length value, once clEnd > 0
}

// scan reads the complete lines of b from s.next on; it returns the
// section's length once its empty line is there, else 0.
func (s *blockScan) scan(b []byte) (int, error) {
	const name = "content-length:"
	for {
		i := bytes.IndexByte(b[s.next:], '\n')
		if i < 0 {
			return 0, nil
		}
		start, end := s.next, s.next+i // the line, without its LF
		s.next = end + 1
		if end == start || (end == start+1 && b[start] == '\r') {
			return s.next, nil
		}
		if end-start < len(name) || b[start]|0x20 != 'c' || b[start+8]|0x20 != 'l' || !bytes.EqualFold(b[start:start+len(name)], []byte(name)) {
			continue
		}
		vs, ve := start+len(name), end
		for vs < ve && (b[vs] == ' ' || b[vs] == '\t') {
			vs++
		}
		for ve > vs && (b[ve-1] == ' ' || b[ve-1] == '\t' || b[ve-1] == '\r') {
			ve--
		}
		if vs == ve || bytes.IndexFunc(b[vs:ve], func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
			return 0, errContentLength
		}
		if s.clEnd > 0 && !bytes.Equal(b[s.clStart:s.clEnd], b[vs:ve]) {
			return 0, errContentLength
		}
		s.clStart, s.clEnd = vs, ve
	}
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
