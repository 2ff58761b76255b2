package fastupstream

import (
	"bufio"
	"context"
	"net"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/internal/testwait"
)

// TestCloseDuringFinishedReadLeavesPooledConn: a Close that comes while a
// Read is returning the body's end, after that Read has pooled the
// connection, must not touch the connection: another round trip may
// already hold it. The interleaving is set up by hand: the "Read" holds the
// body's lock and pools the connection, another request takes it, then
// Close runs and blocks on the lock.
func TestCloseDuringFinishedReadLeavesPooledConn(t *testing.T) {
	tr := New(Config{})
	nc, peer := net.Pipe()
	t.Cleanup(func() { nc.Close(); peer.Close() })
	c := &conn{t: tr, key: poolKey{addr: "upstream:80"}, nc: nc, br: bufio.NewReader(nc)}
	b := &body{c: c, stop: func() bool { return true }, cancelled: new(atomic.Bool), ctx: context.Background(), keep: true}

	b.mu.Lock()    // a Read is in progress...
	b.finish(true) // ...and has reached the end: c is pooled
	if got, _ := tr.get(c.key); got != c {
		t.Fatalf("the pool gave %p, want the connection just pooled %p", got, c)
	}
	closed := make(chan struct{})
	go func() { _ = b.Close(); close(closed) }()
	testwait.Until(t, 10*time.Second, "Close blocked on the body's lock", func() bool { return blockedIn("(*body).Close", "[sync.Mutex.Lock") })

	go func() { _, _ = peer.Write([]byte("x")) }()
	if _, err := c.br.ReadByte(); err != nil {
		t.Fatalf("the other request's read on its connection: %v", err)
	}
	b.mu.Unlock()
	<-closed
}

// TestCloseDuringBlockedRead: Close while a Read waits for the upstream
// wakes that Read with an error and closes the connection.
func TestCloseDuringBlockedRead(t *testing.T) {
	tr := New(Config{})
	nc, peer := net.Pipe()
	t.Cleanup(func() { nc.Close(); peer.Close() })
	c := &conn{t: tr, key: poolKey{addr: "upstream:80"}, nc: nc, br: bufio.NewReader(nc)}
	b := &body{c: c, r: c.br, stop: func() bool { return true }, cancelled: new(atomic.Bool), ctx: context.Background(), keep: true}
	errc := make(chan error, 1)
	go func() { _, err := b.Read(make([]byte, 8)); errc <- err }()
	testwait.Until(t, 10*time.Second, "Read waiting for the upstream", func() bool { return blockedIn("(*body).Read", "[select") || blockedIn("(*body).Read", "[IO wait") })
	closed := make(chan struct{})
	go func() { _ = b.Close(); close(closed) }()
	select {
	case err := <-errc:
		if err == nil {
			t.Fatal("the woken Read returned no error")
		}
	case <-time.After(10 * time.Second): // a hang bound only
		t.Fatal("Close did not wake the blocked Read")
	}
	<-closed
	if _, err := peer.Write([]byte("x")); err == nil {
		t.Fatal("the connection is still open")
	}
}

// blockedIn reports whether some goroutine is blocked in state (as
// runtime.Stack names it) inside fn.
func blockedIn(fn, state string) bool {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, fn) && strings.Contains(g, state) {
			return true
		}
	}
	return false
}
