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
	"sync"

	"github.com/valyala/fasthttp"
)

// max1xx bounds the informational answers skipped before the final one: a
// server sending 103s without end would otherwise hold the round trip until
// its context ends.
const max1xx = 32

// maxHeaderBytes bounds one response header section, from its status line
// through its empty line (each 1xx answer's on its own). A connection's
// 8 KiB read buffer holds the few hundred bytes most answers carry; a
// provider behind a CDN or a cloud front door can send several KiB more
// (cookies, a CSP, request ids) and would fail on a bound that tight.
// net/http allows 10 MiB; 64 KiB is well past the several KiB such answers
// carry, and small enough that an upstream cannot make a round trip hold
// much memory (the section, a parse buffer of this size, and what
// fasthttp copies into the connection's header).
const maxHeaderBytes = 64 << 10

var (
	errTooMany1xx     = fmt.Errorf("fastupstream: more than %d 1xx informational responses", max1xx)
	errHeaderTooLarge = fmt.Errorf("fastupstream: response header section larger than the %d-byte limit", maxHeaderBytes)
	// errHeaderCut marks a connection that ended inside a header section
	// too large for the read buffer: part of an answer arrived (and was
	// consumed), so the request is not one a stale connection never saw.
	errHeaderCut = errors.New("fastupstream: connection ended inside a response header")
	// errHeaderEnd is an answer whose header fasthttp ends on another line
	// than the line scan does (a line of only spaces, say): where its body
	// starts is then unclear, and a section read apart could not be
	// given back in part anyway.
	errHeaderEnd       = errors.New("fastupstream: response header section ends ambiguously")
	errContentLength   = errors.New("fastupstream: response has conflicting or invalid Content-Length headers")
	errTLSHandshake    = errors.New("fastupstream: TLS handshake timeout")
	errReqBody         = errors.New("fastupstream: reading the request body")
	errTrailerTooLarge = errors.New("fastupstream: response trailer does not fit the read buffer")
)

// headerBlock returns the next header section buffered in br, through its
// empty line, without consuming it; it waits until the section has arrived.
// The section must fit br's buffer: that is the bound on a trailer, and on
// a header readBigHeader does not have to read. folded reports a line that
// starts with a space or a tab (obs-fold, RFC 9112 5.2). It returns io.EOF
// when the connection ends before any byte, bufio.ErrBufferFull when the
// section does not fit, and errContentLength for Content-Length fields that
// are not a number or disagree (RFC 9112 6.3: the framing is then unknown,
// and fasthttp would take the last one; net/http refuses them too).
func headerBlock(br *bufio.Reader) (block []byte, folded bool, err error) {
	var sc blockScan
	for n := 1; ; n = br.Buffered() + 1 {
		b, err := br.Peek(n)
		if err == nil {
			b, _ = br.Peek(br.Buffered())
		}
		end, serr := sc.scan(b)
		if serr != nil {
			return nil, false, serr
		}
		if end > 0 {
			return b[:end], sc.folded, nil
		}
		if err != nil {
			if len(b) > 0 && err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, false, err
		}
	}
}

// blockScan walks a header section line by line as it arrives, in one pass
// for both its end and its Content-Length fields. Offsets are from the
// section's first byte, which stays b[0] from one Peek to the next.
type blockScan struct {
	next           int  // where the first line not yet scanned starts
	clStart, clEnd int  // the first Content-Length value, once clEnd > 0
	folded         bool // a line starts with a space or a tab
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
		if b[start] == ' ' || b[start] == '\t' {
			s.folded = true
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

// bigHeader is the scratch space for a header section that does not fit a
// connection's read buffer: the section, and a reader over it large enough
// for fasthttp to parse it in one piece. Pooled, so only the round trips
// that need it hold it, and only while they parse.
type bigHeader struct {
	block []byte
	src   bytes.Reader
	br    *bufio.Reader
}

var bigHeaders = sync.Pool{New: func() any {
	return &bigHeader{block: make([]byte, 0, maxHeaderBytes), br: bufio.NewReaderSize(nil, maxHeaderBytes)}
}}

// readBigHeader reads into h the header section at the start of br that
// headerBlock found too large for br's buffer, up to maxHeaderBytes. It
// consumes br line by line through the section's empty line and no
// further, so what follows (the body, or the next answer after a 1xx)
// stays in br as after a section that fits. It checks Content-Length as
// headerBlock does.
func readBigHeader(br *bufio.Reader, h *fasthttp.ResponseHeader) error {
	bh := bigHeaders.Get().(*bigHeader)
	defer bigHeaders.Put(bh)
	block := bh.block[:0]
	var sc blockScan
	for {
		line, err := br.ReadSlice('\n')
		if len(block)+len(line) > maxHeaderBytes {
			return errHeaderTooLarge
		}
		block = append(block, line...)
		if err == bufio.ErrBufferFull { // a line longer than br's buffer: the rest follows
			continue
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("%w after %d bytes: %w", errHeaderCut, len(block), err)
		}
		end, err := sc.scan(block)
		if err != nil {
			return err
		}
		if end > 0 {
			break
		}
	}
	return bh.parse(block, h)
}

// readFoldedHeader reads into h the header section block, buffered at the
// start of br, that has folded lines, from a copy, then consumes it from
// br. fasthttp joins a folded value by moving every byte after it in the
// buffer it parses: in br that would shift the body (and whatever follows
// it) over the bytes the fold took, and the body would be read from the
// wrong place.
func readFoldedHeader(br *bufio.Reader, block []byte, h *fasthttp.ResponseHeader) error {
	bh := bigHeaders.Get().(*bigHeader)
	defer bigHeaders.Put(bh)
	err := bh.parse(append(bh.block[:0], block...), h) // block fits br, so bh.block: no allocation
	_, _ = br.Discard(len(block))
	return err
}

// parse reads into h the header section block, which is bh.block's, all
// of it and nothing after it, or fails with errHeaderEnd.
func (bh *bigHeader) parse(block []byte, h *fasthttp.ResponseHeader) error {
	bh.src.Reset(block)
	bh.br.Reset(&bh.src)
	err := headerParseError(h.Read(bh.br)) // copies what it keeps: block and bh.br are free again after
	if err == nil && (bh.br.Buffered() > 0 || bh.src.Len() > 0) {
		err = errHeaderEnd
	}
	bh.src.Reset(nil)
	bh.br.Reset(nil)
	return err
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
	block, _, err := headerBlock(br)
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

// errMalformedHeader is a response header section fasthttp could not
// parse. fasthttp's own error quotes the bytes it read, which may hold
// cookies and the start of the body: they stay out of errors and so out of
// logs and attempt rows.
var errMalformedHeader = errors.New("fastupstream: malformed response header")

// headerParseError is err from parsing a header section headerBlock or
// readBigHeader found whole, with every fasthttp failure replaced by
// errMalformedHeader; only a bare io.EOF (fasthttp's answer to a section of
// nothing but line ends) passes. fasthttp's errors quote the section,
// including the ones that wrap io.EOF or a timeout: a section the line
// scan ends but fasthttp does not (a last field line without a colon) has
// fasthttp read on, to the end of a copy or to the connection's deadline.
// That is not a connection closed early either.
func headerParseError(err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	return errMalformedHeader
}
