// Package fastupstream is an http.RoundTripper for the upstream client that
// speaks HTTP/1.1 with fasthttp's response header parser over its own
// connection pool, so provider adapters keep their *http.Client while a
// round trip costs a fraction of net/http's transport (no per-connection
// read and write goroutines, no channel hand-offs).
//
// fasthttp's own HostClient is not used: it cannot abort a blocked read when
// a request context is cancelled, and dispatch bounds first byte and stream
// idle time by cancelling the context. Here every round trip owns its
// connection, and a cancelled context sets a past deadline on it, which
// wakes any blocked read or write at once; such a connection is closed,
// never pooled.
//
// Requests it does not handle (a configured HTTP proxy for the URL, request
// trailers, a body of unknown length, a scheme other than http or https) go
// to the net/http fallback transport unchanged.
//
// Ring: root (internal tooling the composition root wires).
package fastupstream

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"net/url"
	"os"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

// Config sizes the pool and the dialer.
type Config struct {
	MaxIdlePerHost int           // idle connections kept per host (0: 1024)
	IdleTimeout    time.Duration // an idle connection older than this is closed (0: 90s)
	DialTimeout    time.Duration // TCP connect bound (0: 10s)
	// Fallback serves requests this transport does not handle; nil means a
	// clone of http.DefaultTransport.
	Fallback *http.Transport
}

// Transport is the RoundTripper. The zero value is not usable; call New.
type Transport struct {
	cfg      Config
	dialer   net.Dialer
	fallback *http.Transport
	// proxied is whether any proxy variable is set: only then is the
	// fallback's Proxy function asked per request.
	proxied bool

	mu    sync.Mutex
	pools map[poolKey]*hostPool
	// sweeper closes connections idle for IdleTimeout; it is pending
	// while sweepArmed.
	sweeper    *time.Timer
	sweepArmed bool
}

type poolKey struct {
	tls  bool
	addr string // host:port
}

type hostPool struct {
	idle []*conn // LIFO
}

// New returns a transport with cfg's limits.
func New(cfg Config) *Transport {
	if cfg.MaxIdlePerHost <= 0 {
		cfg.MaxIdlePerHost = 1024
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 90 * time.Second
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = 10 * time.Second
	}
	fb := cfg.Fallback
	if fb == nil {
		fb = http.DefaultTransport.(*http.Transport).Clone()
	}
	t := &Transport{
		cfg:      cfg,
		dialer:   net.Dialer{Timeout: cfg.DialTimeout, KeepAlive: 30 * time.Second},
		fallback: fb,
		pools:    map[poolKey]*hostPool{},
	}
	t.proxied = fb.Proxy != nil && (proxyEnvSet() || !fromEnvironment(fb.Proxy))
	return t
}

// fromEnvironment reports whether proxy is http.ProxyFromEnvironment, which
// with no proxy variable set sends nothing to a proxy: only then may the
// per-request Proxy call be skipped.
func fromEnvironment(proxy func(*http.Request) (*url.URL, error)) bool {
	return reflect.ValueOf(proxy).Pointer() == reflect.ValueOf(http.ProxyFromEnvironment).Pointer()
}

func proxyEnvSet() bool {
	for _, k := range []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy"} {
		if os.Getenv(k) != "" {
			return true
		}
	}
	return false
}

// WithDialControl returns a copy of t (with an empty pool) whose every dial,
// its own and its fallback's, runs control on the socket with the address
// being dialed, and which uses no proxy. openaicompat.GuardedClient finds it
// by this method to install the address policy.
func (t *Transport) WithDialControl(control func(network, address string, c syscall.RawConn) error) http.RoundTripper {
	d := t.dialer
	d.Control = control
	fb := t.fallback.Clone()
	fb.Proxy = nil
	fb.DialContext = d.DialContext
	fb.DialTLSContext = nil
	return &Transport{cfg: t.cfg, dialer: d, fallback: fb, pools: map[poolKey]*hostPool{}}
}

// CloseIdleConnections closes every pooled connection.
func (t *Transport) CloseIdleConnections() {
	t.mu.Lock()
	pools := t.pools
	t.pools = map[poolKey]*hostPool{}
	t.mu.Unlock()
	for _, p := range pools {
		for _, c := range p.idle {
			_ = c.nc.Close()
		}
	}
	t.fallback.CloseIdleConnections()
}

// handles reports whether the fast path serves req.
func (t *Transport) handles(req *http.Request) bool {
	if req.URL == nil || (req.URL.Scheme != "http" && req.URL.Scheme != "https") || req.URL.Host == "" {
		return false
	}
	if len(req.Trailer) > 0 || (req.Body != nil && req.Body != http.NoBody && req.ContentLength <= 0) {
		return false
	}
	if len(req.TransferEncoding) > 0 || req.Header.Get("Upgrade") != "" {
		return false
	}
	if t.proxied {
		if u, err := t.fallback.Proxy(req); err != nil || u != nil {
			return false
		}
	}
	return true
}

// RoundTrip sends req and returns its response; the body streams from the
// connection as it arrives, and closing it before its end closes the
// connection.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.handles(req) {
		return t.fallback.RoundTrip(req)
	}
	ctx := req.Context()
	if err := ctx.Err(); err != nil {
		closeBody(req)
		return nil, err
	}
	key := poolKey{tls: req.URL.Scheme == "https", addr: hostPort(req)}
	c, err := t.get(key)
	if err != nil {
		closeBody(req)
		return nil, err
	}
	if c != nil {
		resp, err := t.roundTrip(ctx, c, req)
		if err == nil || !retryable(req, err) {
			return resp, err
		}
		// The server closed a pooled connection before answering, and
		// req is safe to repeat: send it again on a new one.
		if req.GetBody != nil {
			body, gerr := req.GetBody()
			if gerr != nil {
				return nil, err
			}
			r2 := *req
			r2.Body = body
			req = &r2
		}
	}
	if c, err = t.dial(ctx, key, req); err != nil {
		closeBody(req)
		return nil, err
	}
	return t.roundTrip(ctx, c, req)
}

func closeBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// errStaleConn marks a failure on a reused connection before any answer byte.
var errStaleConn = errors.New("fastupstream: pooled connection closed by server")

// retryable reports whether req may be sent again after err: a stale
// pooled connection, and a request that is safe to repeat (net/http's rule:
// an idempotent method, or an idempotency key). A POST is not: the server
// may have read and processed it before the connection failed, and
// dispatch, which knows what a second call costs, decides on retries.
func retryable(req *http.Request, err error) bool {
	if !errors.Is(err, errStaleConn) || req.Context().Err() != nil {
		return false
	}
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return false
	}
	switch req.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return req.Header.Get("Idempotency-Key") != "" || req.Header.Get("X-Idempotency-Key") != ""
}

func hostPort(req *http.Request) string {
	host, port := req.URL.Hostname(), req.URL.Port()
	if port == "" {
		if req.URL.Scheme == "https" {
			port = "443"
		} else {
			port = "80"
		}
	} else if len(req.URL.Host) > 0 && req.URL.Host[0] != '[' {
		return req.URL.Host
	}
	return net.JoinHostPort(host, port)
}

// get takes the newest idle connection for key that is not too old, or nil.
func (t *Transport) get(key poolKey) (*conn, error) {
	for {
		c := t.pop(key)
		if c == nil {
			return nil, nil
		}
		// The peek is a syscall: outside the lock every request shares.
		if time.Since(c.idleSince) < t.cfg.IdleTimeout && c.br.Buffered() == 0 && alive(c.nc) {
			_ = c.nc.SetDeadline(time.Time{}) // in case a late Close woke a read it had finished
			return c, nil
		}
		_ = c.nc.Close()
	}
}

// pop takes the most recently idle connection of key's pool, or nil.
func (t *Transport) pop(key poolKey) *conn {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.pools[key]
	if p == nil || len(p.idle) == 0 {
		return nil
	}
	c := p.idle[len(p.idle)-1]
	p.idle[len(p.idle)-1] = nil
	p.idle = p.idle[:len(p.idle)-1]
	return c
}

// alive reports whether an idle connection is still open: a non-blocking
// peek at its socket finds nothing to read. An idle HTTP/1.1 connection has
// nothing to say, so a closed one (the server's idle timeout: EOF) or one
// with bytes waiting (a TLS alert, a stray answer) is not reused; the
// request then goes out on a new connection instead of failing on this one.
func alive(nc net.Conn) bool {
	if tc, ok := nc.(*tls.Conn); ok {
		nc = tc.NetConn()
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	open := false
	var buf [1]byte
	if err := rc.Read(func(fd uintptr) bool {
		n, _, rerr := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		open = n < 0 && (rerr == syscall.EAGAIN || rerr == syscall.EWOULDBLOCK)
		return true // never wait for the socket to become readable
	}); err != nil {
		return false
	}
	return open
}

// put returns c to its pool, or closes it when the pool is full.
func (t *Transport) put(c *conn) {
	c.reused = true
	t.mu.Lock()
	c.idleSince = time.Now()
	p := t.pools[c.key]
	if p == nil {
		p = &hostPool{}
		t.pools[c.key] = p
	}
	if len(p.idle) < t.cfg.MaxIdlePerHost {
		p.idle = append(p.idle, c)
		c = nil
		t.armSweep(t.cfg.IdleTimeout)
	}
	t.mu.Unlock()
	if c != nil {
		_ = c.nc.Close()
	}
}

// armSweep starts the sweep timer to fire after d unless it is running;
// t.mu is held. One timer per transport, not one per connection: a round
// trip then costs no timer operation.
func (t *Transport) armSweep(d time.Duration) {
	if t.sweepArmed {
		return
	}
	t.sweepArmed = true
	if t.sweeper == nil {
		t.sweeper = time.AfterFunc(d, t.sweep)
	} else {
		t.sweeper.Reset(d)
	}
}

// sweep closes the connections idle for IdleTimeout or longer, in every
// pool (a host no request goes to again too), and sets the timer again for
// when the oldest remaining one expires.
func (t *Transport) sweep() {
	now := time.Now()
	var expired []*conn
	t.mu.Lock()
	t.sweepArmed = false
	next := time.Duration(-1)
	for k, p := range t.pools {
		// p.idle is oldest first: put appends, get takes from the end.
		i := 0
		for i < len(p.idle) && now.Sub(p.idle[i].idleSince) >= t.cfg.IdleTimeout {
			i++
		}
		expired = append(expired, p.idle[:i]...)
		n := copy(p.idle, p.idle[i:])
		clear(p.idle[n:])
		p.idle = p.idle[:n]
		if n == 0 {
			delete(t.pools, k)
		} else if d := t.cfg.IdleTimeout - now.Sub(p.idle[0].idleSince); next < 0 || d < next {
			next = d
		}
	}
	if next >= 0 {
		t.armSweep(next)
	}
	t.mu.Unlock()
	for _, c := range expired {
		_ = c.nc.Close()
	}
}

// conn is one upstream connection, used by one round trip at a time.
type conn struct {
	t         *Transport
	key       poolKey
	nc        net.Conn
	br        *bufio.Reader
	hdr       fasthttp.ResponseHeader
	idleSince time.Time
	reused    bool
}

func (t *Transport) dial(ctx context.Context, key poolKey, req *http.Request) (*conn, error) {
	nc, err := t.dialer.DialContext(ctx, "tcp", key.addr)
	if err != nil {
		return nil, err
	}
	if key.tls {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12}
		if t.fallback.TLSClientConfig != nil { // the roots and settings net/http would use
			cfg = t.fallback.TLSClientConfig.Clone()
		}
		cfg.ServerName, cfg.NextProtos = req.URL.Hostname(), []string{"http/1.1"}
		tc := tls.Client(nc, cfg)
		if err := t.handshake(ctx, tc); err != nil {
			_ = nc.Close()
			return nil, err
		}
		nc = tc
	}
	return &conn{t: t, key: key, nc: nc, br: bufio.NewReaderSize(nc, 8192)}, nil
}

// handshake runs the TLS handshake within the fallback transport's
// TLSHandshakeTimeout (net/http's bound; zero means none), so a server that
// accepts the connection and never answers does not hold the dial until the
// request's context ends.
func (t *Transport) handshake(ctx context.Context, tc *tls.Conn) error {
	d := t.fallback.TLSHandshakeTimeout
	if d <= 0 {
		return tc.HandshakeContext(ctx)
	}
	hctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	err := tc.HandshakeContext(hctx)
	if err != nil && ctx.Err() == nil && hctx.Err() != nil {
		return errTLSHandshake
	}
	return err
}

// writers are the buffers requests are written through: a connection
// needs one only while it sends, so a stream (or an idle pooled
// connection) holds none.
var writers = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 4096) }}

// pastDeadline wakes every blocked read and write on a connection.
var pastDeadline = time.Unix(1, 0)

// roundTrip writes req on c and reads the answer's header. A cancelled
// context at any point closes c and returns the context's error.
func (t *Transport) roundTrip(ctx context.Context, c *conn, req *http.Request) (*http.Response, error) {
	var cancelled atomic.Bool
	stop := context.AfterFunc(ctx, func() {
		cancelled.Store(true)
		_ = c.nc.SetDeadline(pastDeadline)
	})
	fail := func(err error) (*http.Response, error) {
		stop()
		_ = c.nc.Close()
		if cancelled.Load() {
			return nil, ctx.Err()
		}
		return nil, err
	}
	bw := writers.Get().(*bufio.Writer)
	bw.Reset(c.nc)
	werr := writeRequest(bw, req)
	bw.Reset(nil)
	writers.Put(bw)
	closeBody(req)
	if werr != nil && (cancelled.Load() || errors.Is(werr, errReqBody) || !isClosedEarly(werr)) {
		if c.reused {
			werr = fmt.Errorf("%w: %w", errStaleConn, werr)
		}
		return fail(werr)
	}
	// After a broken pipe or reset while sending, the server may still
	// have answered before it stopped reading (a 413, or a 401 or 429 from
	// a front end): read that answer as net/http does, and fail with the
	// write's error only when there is none.
	if err := readHeader(c); err != nil {
		// Stale only when the read found no answer byte at all: the
		// read's error decides, not the write's that may replace it.
		stale := c.reused && c.br.Buffered() == 0 && isClosedEarly(err) && !errors.Is(err, errHeaderCut)
		if werr != nil {
			err = werr
		}
		if stale {
			err = fmt.Errorf("%w: %w", errStaleConn, err)
		}
		return fail(err)
	}
	h := &c.hdr
	resp := &http.Response{
		StatusCode: h.StatusCode(),
		Proto:      "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  responseHeader(h),
		Request: req,
	}
	resp.Status = strconv.Itoa(resp.StatusCode) + " " + statusText(h, resp.StatusCode)
	if p := h.Protocol(); string(p) == "HTTP/1.0" {
		resp.Proto, resp.ProtoMinor = "HTTP/1.0", 0
	}
	keep := !h.ConnectionClose() && resp.ProtoMinor == 1 && !req.Close && !hasClose(resp.Header["Connection"]) &&
		resp.StatusCode != http.StatusSwitchingProtocols && werr == nil
	b := &body{c: c, stop: stop, cancelled: &cancelled, ctx: ctx, keep: keep}
	cl := h.ContentLength()
	switch {
	case req.Method == http.MethodHead || resp.StatusCode == http.StatusNoContent || resp.StatusCode == http.StatusNotModified || resp.StatusCode == http.StatusSwitchingProtocols:
		resp.ContentLength = int64(max(cl, 0))
		if req.Method != http.MethodHead {
			resp.ContentLength = 0
		}
		resp.Close = !keep
		b.finish(keep)
		resp.Body = http.NoBody
		return resp, nil
	case cl >= 0:
		resp.ContentLength = int64(cl)
		if cl == 0 {
			resp.Close = !keep
			b.finish(keep)
			resp.Body = http.NoBody
			return resp, nil
		}
		b.r = &io.LimitedReader{R: c.br, N: int64(cl)}
		b.limited = true
	case cl == -1: // chunked
		resp.ContentLength = -1
		resp.TransferEncoding = []string{"chunked"}
		b.r = httputil.NewChunkedReader(c.br)
		b.chunked = true
		b.resp = resp
	default: // until the server closes
		resp.ContentLength = -1
		resp.Close = true
		b.r = c.br
		b.keep = false
	}
	resp.Close = resp.Close || !keep
	resp.Body = b
	return resp, nil
}

// readHeader reads the final answer's header into c.hdr, skipping up to
// max1xx informational ones. A header that fits c's read buffer is parsed
// in place; a larger one, up to maxHeaderBytes, is collected apart.
func readHeader(c *conn) error {
	h := &c.hdr
	for n1xx := 0; ; n1xx++ {
		if n1xx > max1xx {
			return errTooMany1xx
		}
		block, folded, err := headerBlock(c.br) // waits for the whole header, checks its Content-Length
		h.Reset()
		h.SetNoDefaultContentType(true)
		switch {
		case err == nil && folded:
			err = readFoldedHeader(c.br, block, h)
		case err == nil:
			n := c.br.Buffered()
			err = headerParseError(h.Read(c.br)) // the whole block is buffered: this does not wait
			if err == nil && n-c.br.Buffered() != len(block) {
				err = errHeaderEnd
			}
		case errors.Is(err, bufio.ErrBufferFull):
			err = readBigHeader(c.br, h)
		}
		if err != nil {
			return err
		}
		if code := h.StatusCode(); code < 100 || code >= 200 || code == http.StatusSwitchingProtocols {
			return nil
		}
	}
}

func statusText(h *fasthttp.ResponseHeader, code int) string {
	if m := h.StatusMessage(); len(m) > 0 {
		return string(m)
	}
	return http.StatusText(code)
}

func isClosedEarly(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// writeRequest writes req's request line, headers and body (of known length).
func writeRequest(w *bufio.Writer, req *http.Request) error {
	uri := req.URL.RequestURI()
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	w.WriteString(method)
	w.WriteByte(' ')
	w.WriteString(uri)
	w.WriteString(" HTTP/1.1\r\nHost: ")
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	w.WriteString(host)
	w.WriteString("\r\n")
	hasUA := false
	for k, vs := range req.Header {
		if !validHeaderKey(k) {
			return fmt.Errorf("fastupstream: invalid header field name %q", k)
		}
		switch textproto.CanonicalMIMEHeaderKey(k) {
		case "Host", "Content-Length", "Transfer-Encoding", "Connection", "Trailer":
			continue
		case "User-Agent":
			hasUA = true
		}
		for _, v := range vs {
			if !validHeaderValue(v) {
				return fmt.Errorf("fastupstream: invalid header value for %q", k)
			}
			w.WriteString(k)
			w.WriteString(": ")
			w.WriteString(v)
			w.WriteString("\r\n")
		}
	}
	if !hasUA {
		w.WriteString("User-Agent: Go-http-client/1.1\r\n")
	}
	if req.Close {
		w.WriteString("Connection: close\r\n")
	}
	hasBody := req.Body != nil && req.Body != http.NoBody && req.ContentLength > 0
	if hasBody || (method != http.MethodGet && method != http.MethodHead) {
		n := int64(0)
		if hasBody {
			n = req.ContentLength
		}
		w.WriteString("Content-Length: ")
		w.WriteString(strconv.FormatInt(n, 10))
		w.WriteString("\r\n")
	}
	w.WriteString("\r\n")
	if hasBody {
		src := &bodyReader{r: io.LimitReader(req.Body, req.ContentLength)}
		n, err := io.Copy(w, src)
		if src.err != nil {
			return fmt.Errorf("%w: %w", errReqBody, src.err)
		}
		if err != nil {
			return err
		}
		if n != req.ContentLength {
			return fmt.Errorf("fastupstream: request body has %d bytes, ContentLength says %d", n, req.ContentLength)
		}
	}
	return w.Flush()
}

// bodyReader records a request body's read error, to tell it from the
// connection's write errors.
type bodyReader struct {
	r   io.Reader
	err error
}

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		b.err = err
	}
	return n, err
}

func validHeaderKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c <= ' ' || c >= 0x7f || c == ':' {
			return false
		}
	}
	return true
}

func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c == '\r' || c == '\n' || c == 0 {
			return false
		}
	}
	return true
}

// body streams an answer from its connection. Reaching its end on a
// keep-alive connection returns the connection to the pool; closing it
// earlier, an error or a cancelled context closes the connection.
type body struct {
	c         *conn
	r         io.Reader
	stop      func() bool
	cancelled *atomic.Bool
	ctx       context.Context
	resp      *http.Response
	keep      bool
	limited   bool
	chunked   bool
	done      bool         // the connection is pooled or closed
	closed    bool         // Close was called
	owner     atomic.Int32 // ownerBody, then ownerClose (Close claimed it) or ownerDone (finish released it)
	err       error        // what Read returns once done
	mu        sync.Mutex
}

func (b *body) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, errors.New("http: read on closed response body")
	}
	if b.done {
		return 0, b.err
	}
	n, err := b.r.Read(p)
	if b.limited && err == nil && b.r.(*io.LimitedReader).N == 0 {
		err = io.EOF
	}
	switch {
	case err == io.EOF && b.limited && b.r.(*io.LimitedReader).N > 0:
		err = io.ErrUnexpectedEOF
		b.finish(false)
	case err == io.EOF:
		ok := b.keep
		if b.chunked {
			tr, terr := readTrailer(b.c.br)
			if terr != nil {
				err, ok = terr, false
				if b.cancelled.Load() {
					err = b.ctx.Err()
				}
			} else if tr != nil {
				b.resp.Trailer = tr
			}
		}
		b.finish(ok)
	case err != nil:
		if b.cancelled.Load() {
			err = b.ctx.Err()
		}
		b.finish(false)
	}
	if err != nil {
		b.err = err
	}
	return n, err
}

// finish ends the body: the connection goes back to the pool when reuse is
// true and the context was not cancelled, else it is closed.
func (b *body) finish(reuse bool) {
	if b.done {
		return
	}
	b.done = true
	if b.stop() && reuse && b.c.br.Buffered() == 0 && b.owner.CompareAndSwap(ownerBody, ownerDone) {
		b.c.t.put(b.c)
		return
	}
	_ = b.c.nc.Close()
}

// Who may act on a body's connection: the body until Close claims it or
// finish releases it (to the pool, where another round trip may take it).
const (
	ownerBody int32 = iota
	ownerClose
	ownerDone
)

func (b *body) Close() error {
	claimed := b.owner.CompareAndSwap(ownerBody, ownerClose)
	if !b.mu.TryLock() {
		// A Read is in progress: wake it, then finish. Once claimed,
		// finish no longer pools the connection; unclaimed, finish has
		// already released it and it is not this body's to touch.
		if claimed {
			_ = b.c.nc.SetDeadline(pastDeadline)
		}
		b.mu.Lock()
	}
	b.finish(false)
	b.closed = true
	b.mu.Unlock()
	return nil
}
