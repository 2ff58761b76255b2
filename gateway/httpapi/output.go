package httpapi

import (
	"bytes"
	"context"
	"fmt"
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
