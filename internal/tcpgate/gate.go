// Package tcpgate is a test helper: a TCP forwarder that can be switched
// between "refusing" (every connection is closed at once, as a dead server
// would) and "forwarding" to a real server. Tests use it to take a real
// ClickHouse or Redis away from the process under test and give it back.
// Ring: internal test support; it does network I/O.
package tcpgate

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// Gate listens on a loopback port and forwards to a target while open.
type Gate struct {
	l      net.Listener
	target string
	open   atomic.Bool

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// New listens on 127.0.0.1 (closed: refusing) and forwards to target once
// Open is called. It stops when the test ends.
func New(t testing.TB, target string) *Gate {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &Gate{l: l, target: target, conns: map[net.Conn]struct{}{}}
	g.wg.Add(1)
	go g.serve()
	t.Cleanup(func() {
		_ = l.Close()
		g.Shut()
		g.wg.Wait()
	})
	return g
}

// Addr is the gate's host:port.
func (g *Gate) Addr() string { return g.l.Addr().String() }

// Open starts forwarding new connections.
func (g *Gate) Open() { g.open.Store(true) }

// Shut refuses new connections and cuts the forwarded ones.
func (g *Gate) Shut() {
	g.open.Store(false)
	g.mu.Lock()
	defer g.mu.Unlock()
	for c := range g.conns {
		_ = c.Close()
	}
}

func (g *Gate) serve() {
	defer g.wg.Done()
	for {
		c, err := g.l.Accept()
		if err != nil {
			return
		}
		if !g.open.Load() {
			_ = c.Close()
			continue
		}
		up, err := net.Dial("tcp", g.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		g.track(c, up)
	}
}

// track copies both ways until either side ends, then closes both.
func (g *Gate) track(c, up net.Conn) {
	g.mu.Lock()
	g.conns[c], g.conns[up] = struct{}{}, struct{}{}
	g.mu.Unlock()
	g.wg.Add(2)
	pipe := func(dst, src net.Conn) {
		defer g.wg.Done()
		_, _ = io.Copy(dst, src)
		_ = dst.Close()
		_ = src.Close()
		g.mu.Lock()
		delete(g.conns, dst)
		delete(g.conns, src)
		g.mu.Unlock()
	}
	go pipe(c, up)
	go pipe(up, c)
}
