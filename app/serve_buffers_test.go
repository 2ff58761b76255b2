package app

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
)

// startServer serves app on a loopback listener and returns its address.
func startServer(t testing.TB, app *fiber.App) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	return ln.Addr().String()
}

// TestStreamsHoldNoReadBuffer: a connection whose answer is streaming holds
// no 64 KiB read buffer, so a burst of new streams allocates less than one
// buffer each before their first bytes (83.6 KB a stream when every
// connection kept its read buffer; 18.6 KB without, about 35 KB under
// -race).
func TestStreamsHoldNoReadBuffer(t *testing.T) {
	release := make(chan struct{})
	app := fiber.New(serverConfig(Config{MaxBodyBytes: 1 << 20}, nil))
	app.Post("/stream", func(c *fiber.Ctx) error {
		c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
			_, _ = w.WriteString("data: first\n\n")
			_ = w.Flush()
			<-release
		})
		return nil
	})
	addr := startServer(t, app)
	open := func(n int) []net.Conn {
		conns := make([]net.Conn, 0, n)
		var first [64]byte
		for range n {
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, nc)
			if _, err := nc.Write([]byte("POST /stream HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")); err != nil {
				t.Fatal(err)
			}
			if _, err := nc.Read(first[:]); err != nil { // the answer has started
				t.Fatal(err)
			}
		}
		return conns
	}
	defer close(release)
	warm := open(8) // the server's pools and goroutines exist before counting
	defer closeAll(warm)

	const n = 100
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	conns := open(n)
	runtime.ReadMemStats(&after)
	defer closeAll(conns)
	perStream := (after.TotalAlloc - before.TotalAlloc) / n
	t.Logf("%d bytes allocated per new stream", perStream)
	if perStream > 48<<10 {
		t.Errorf("%d bytes allocated per new stream, want at most 48 KiB (less than the 64 KiB read buffer a connection held)", perStream)
	}
}

func closeAll(conns []net.Conn) {
	for _, c := range conns {
		_ = c.Close()
	}
}

// TestLongRequestHeaderAccepted: a request header up to the 64 KiB read
// buffer is still read whole (agents send long ones), and a longer one is
// answered 431.
func TestLongRequestHeaderAccepted(t *testing.T) {
	app := fiber.New(serverConfig(Config{MaxBodyBytes: 1 << 20}, nil))
	app.Get("/", func(c *fiber.Ctx) error { return c.SendString(fmt.Sprint(len(c.Get("X-Long")))) })
	addr := startServer(t, app)
	for _, tc := range []struct {
		name   string
		size   int
		status string
		body   string
	}{
		{"40 KiB", 40 << 10, "HTTP/1.1 200", "40960"},
		{"70 KiB", 70 << 10, "HTTP/1.1 431", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			req := "GET / HTTP/1.1\r\nHost: x\r\nX-Long: " + strings.Repeat("a", tc.size) + "\r\nConnection: close\r\n\r\n"
			if _, err := nc.Write([]byte(req)); err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(nc)
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(line, tc.status) {
				t.Fatalf("status line %q, want %s", line, tc.status)
			}
			if tc.body == "" {
				return
			}
			rest, _ := io.ReadAll(br)
			if !strings.HasSuffix(string(rest), "\r\n\r\n"+tc.body) {
				t.Errorf("answer %q, want body %s", rest, tc.body)
			}
		})
	}
}
