package app

import (
	"net"
	"time"

	"github.com/gofiber/fiber/v2"
)

// listen opens addr on srv's network for srv.Listener, each accepted
// connection with a read deadline of srv's ReadTimeout (see
// firstReadDeadline).
func listen(srv *fiber.App, addr string) (net.Listener, error) {
	ln, err := net.Listen(srv.Config().Network, addr)
	if err != nil {
		return nil, err
	}
	return firstReadDeadline{Listener: ln, d: srv.Config().ReadTimeout}, nil
}

// firstReadDeadline sets a read deadline d from now on every connection it
// accepts. With ReduceMemoryUsage fasthttp reads a connection's first byte
// before it sets any deadline of its own (from then on it sets ReadTimeout
// and IdleTimeout itself), so without this a connection that never sends a
// request would be held open for ever, a goroutine and a socket each.
type firstReadDeadline struct {
	net.Listener
	d time.Duration
}

func (l firstReadDeadline) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err == nil && l.d > 0 {
		_ = nc.SetReadDeadline(time.Now().Add(l.d))
	}
	return nc, err
}
