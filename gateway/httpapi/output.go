package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"sync"

	"github.com/heddle-gw/heddle/gateway"
)

// bridge connects the gateway's Output, written by the goroutine running the
// turn, to the fiber handler and its body stream writer.
type bridge struct {
	ctx    context.Context
	commit chan gateway.Served // receives once
	chunks chan *[]byte        // from chunkPool; closed when the turn ends
	done   chan error          // receives once, after chunks is closed
}

func newBridge(ctx context.Context) *bridge {
	return &bridge{
		ctx:    ctx,
		commit: make(chan gateway.Served, 1),
		chunks: make(chan *[]byte, 64),
		done:   make(chan error, 1),
	}
}

var _ gateway.Output = (*bridge)(nil)

// Commit hands the response head to the handler.
func (b *bridge) Commit(s gateway.Served) { b.commit <- s }

// chunkPool holds the buffers of queued chunks: the reader hands each back
// (putChunk) once written, so a stream reuses a few buffers instead of
// allocating one per event.
var chunkPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// putChunk returns a drained chunk's buffer to the pool (a very large one
// is left to the collector).
func putChunk(bp *[]byte) {
	if cap(*bp) <= 64<<10 {
		chunkPool.Put(bp)
	}
}

// Write copies p (the encoder reuses its buffer) and queues it for the client.
func (b *bridge) Write(p []byte) error {
	bp := chunkPool.Get().(*[]byte)
	*bp = append((*bp)[:0], p...)
	select {
	case b.chunks <- bp:
		return nil
	case <-b.ctx.Done():
		putChunk(bp)
		return b.ctx.Err()
	}
}

// Flush is a no-op: the body writer flushes after every chunk it drains.
func (b *bridge) Flush() error { return b.ctx.Err() }

// streamBody is a streamed answer's body as fasthttp reads it: the
// connection's goroutine takes each queued chunk (coalescing those already
// waiting) and writes and flushes it as one HTTP chunk. fasthttp closes it
// once the body was written or the write failed; Close ends the turn's
// context, drains what the turn still writes so it can finish and record,
// and reports the turn's result to done.
type streamBody struct {
	b      *bridge
	cancel context.CancelFunc
	done   func(error)
	cur    *[]byte // the chunk being read, from chunkPool
	off    int     // bytes of cur already read
	ended  bool    // chunks is closed and drained
	closed bool
}

// Read fills p from the queued chunks, waiting for one only when nothing was
// read yet; it returns io.EOF once the turn ended and every chunk was read.
func (s *streamBody) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if s.cur == nil {
			if s.ended {
				break
			}
			var (
				bp *[]byte
				ok bool
			)
			if n == 0 {
				bp, ok = <-s.b.chunks
			} else {
				select {
				case bp, ok = <-s.b.chunks:
				default:
					return n, nil
				}
			}
			if !ok {
				s.ended = true
				break
			}
			s.cur, s.off = bp, 0
		}
		c := copy(p[n:], (*s.cur)[s.off:])
		n += c
		s.off += c
		if s.off == len(*s.cur) {
			putChunk(s.cur)
			s.cur = nil
		}
	}
	if n == 0 && s.ended {
		return 0, io.EOF
	}
	return n, nil
}

// Close ends the stream (once).
func (s *streamBody) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if !s.ended {
		s.cancel() // the write failed or the body was dropped: end the turn
	}
	if s.cur != nil {
		putChunk(s.cur)
		s.cur = nil
	}
	for bp := range s.b.chunks {
		putChunk(bp)
	}
	err := <-s.b.done
	s.cancel()
	s.done(err)
	return nil
}

// run executes the turn on ctx and closes the bridge. A panic in the turn is
// recovered here (it runs outside fiber's handler) and becomes an error.
func (b *bridge) run(ctx context.Context, svc *gateway.Service, t *gateway.Turn) {
	var err error
	defer func() {
		close(b.chunks)
		b.done <- err
	}()
	err = serveRecovered(ctx, svc.Serve, t, b)
}

// serveRecovered serves the turn, turning a panic into a *panicError.
func serveRecovered(ctx context.Context, serve func(context.Context, *gateway.Turn, gateway.Output) error, t *gateway.Turn, out gateway.Output) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &panicError{value: fmt.Sprint(r), stack: string(debug.Stack())}
		}
	}()
	return serve(ctx, t, out)
}

// inlineOutput collects the answer of a turn that cannot stream, served in
// the handler's own goroutine (no bridge, no goroutine, no chunk copies).
type inlineOutput struct {
	served    gateway.Served
	committed bool
	body      []byte
}

var _ gateway.Output = (*inlineOutput)(nil)

func (o *inlineOutput) Commit(s gateway.Served) { o.served, o.committed = s, true }

func (o *inlineOutput) Write(p []byte) error { o.body = append(o.body, p...); return nil }

func (o *inlineOutput) Flush() error { return nil }

// mayStream reports whether a turn could be a stream: Gemini's stream
// method, or a body with a "stream" key set to true (every other format
// asks for a stream in its body; an unescaped "stream" followed by a colon
// can only be a key). A body without one is served inline; one whose key is
// escaped ("\u0073tream") is too, answered whole.
func mayStream(body []byte, pathStream bool) bool {
	if pathStream {
		return true
	}
	key := []byte(`"stream"`)
	for i := bytes.Index(body, key); i >= 0; {
		rest := bytes.TrimLeft(body[i+len(key):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' && bytes.HasPrefix(bytes.TrimLeft(rest[1:], " \t\r\n"), []byte("true")) {
			return true
		}
		body = body[i+len(key):]
		i = bytes.Index(body, key)
	}
	return false
}

// panicError is a recovered panic of a turn.
type panicError struct{ value, stack string }

func (e *panicError) Error() string { return "httpapi: panic in turn: " + e.value }
