package httpapi

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/heddle-gw/heddle/gateway"
)

// bridge connects the gateway's Output, written by the goroutine running the
// turn, to the fiber handler and its body stream writer.
type bridge struct {
	ctx    context.Context
	commit chan gateway.Served // receives once
	chunks chan []byte         // closed when the turn ends
	done   chan error          // receives once, after chunks is closed
}

func newBridge(ctx context.Context) *bridge {
	return &bridge{
		ctx:    ctx,
		commit: make(chan gateway.Served, 1),
		chunks: make(chan []byte, 64),
		done:   make(chan error, 1),
	}
}

var _ gateway.Output = (*bridge)(nil)

// Commit hands the response head to the handler.
func (b *bridge) Commit(s gateway.Served) { b.commit <- s }

// Write copies p (the encoder reuses its buffer) and queues it for the client.
func (b *bridge) Write(p []byte) error {
	cp := make([]byte, len(p))
	copy(cp, p)
	select {
	case b.chunks <- cp:
		return nil
	case <-b.ctx.Done():
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
		if r := recover(); r != nil {
			err = &panicError{value: fmt.Sprint(r), stack: string(debug.Stack())}
		}
		close(b.chunks)
		b.done <- err
	}()
	err = svc.Serve(ctx, t, b)
}

// panicError is a recovered panic of a turn.
type panicError struct{ value, stack string }

func (e *panicError) Error() string { return "httpapi: panic in turn: " + e.value }
