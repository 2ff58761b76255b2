package app

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
)

// TestSilentConnectionClosed: a connection that never sends its first
// request is closed after the read timeout. (fasthttp's ReduceMemoryUsage
// reads a request's first byte before it sets the read deadline, so such
// a connection was held open for ever, a goroutine and a socket each.)
func TestSilentConnectionClosed(t *testing.T) {
	fc := serverConfig(Config{MaxBodyBytes: 1 << 20}, nil)
	fc.ReadTimeout = 50 * time.Millisecond // 2 minutes in production
	app := fiber.New(fc)
	app.Get("/", func(c *fiber.Ctx) error { return c.SendString("ok") })
	ln, err := listen(app, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_ = nc.SetReadDeadline(time.Now().Add(20 * time.Second)) // a hang bound only
	// fasthttp answers 408 or just closes: either way the connection ends.
	if _, err := io.ReadAll(nc); errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatal("the server kept a connection that sent nothing open")
	} else if err != nil {
		t.Fatalf("read %v, want the server to close the connection", err)
	}
}
