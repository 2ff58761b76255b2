package app

import (
	"bufio"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
)

// BenchmarkKeepAliveServer is the data-plane server's own cost per request
// on 32 keep-alive connections (a small JSON answer, and a streamed one),
// with the read buffer released between requests (as served) and kept per
// connection: what ReduceMemoryUsage costs a busy connection. Compare
// cpu-ns/op, the process's CPU time per request.
func BenchmarkKeepAliveServer(b *testing.B) {
	for _, mode := range []struct {
		name   string
		reduce bool
	}{{"released", true}, {"kept", false}} {
		for _, path := range []string{"/json", "/stream"} {
			b.Run(mode.name+path, func(b *testing.B) {
				fc := serverConfig(Config{MaxBodyBytes: 1 << 20}, nil)
				fc.ReduceMemoryUsage = mode.reduce
				app := fiber.New(fc)
				app.Post("/json", func(c *fiber.Ctx) error {
					c.Set("Content-Type", "application/json")
					return c.SendString(`{"id":"x","choices":[]}`)
				})
				app.Post("/stream", func(c *fiber.Ctx) error {
					c.Set("Content-Type", "text/event-stream")
					c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
						for range 3 {
							_, _ = w.WriteString("data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n")
							_ = w.Flush()
						}
					})
					return nil
				})
				addr := startServer(b, app)
				body := `{"model":"gpt-5-mini","messages":[{"role":"user","content":"` + strings.Repeat("x", 200) + `"}]}`
				req := []byte("POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer rk_x\r\nContent-Length: " +
					strconv.Itoa(len(body)) + "\r\n\r\n" + body)
				var failed atomic.Int64
				b.SetParallelism(16) // 32 connections on 2 cores
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := processCPU()
				b.RunParallel(func(pb *testing.PB) {
					nc, err := net.Dial("tcp", addr)
					if err != nil {
						failed.Add(1)
						return
					}
					defer nc.Close()
					br := bufio.NewReader(nc)
					for pb.Next() {
						if _, err := nc.Write(req); err != nil || readAnswer(br) != nil {
							failed.Add(1)
							return
						}
					}
				})
				// CPU time (server and client, one process) moves far
				// less than wall time on a shared machine.
				b.ReportMetric(float64((processCPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
				if failed.Load() > 0 {
					b.Fatalf("%d connections failed", failed.Load())
				}
			})
		}
	}
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// readAnswer reads one HTTP/1.1 answer, of a Content-Length or chunked.
func readAnswer(br *bufio.Reader) error {
	n, chunked := -1, false
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(line) <= 2 {
			break
		}
		if v, ok := strings.CutPrefix(string(line), "Content-Length: "); ok {
			n, _ = strconv.Atoi(strings.TrimSpace(v))
		} else if strings.HasPrefix(string(line), "Transfer-Encoding: chunked") {
			chunked = true
		}
	}
	if !chunked {
		_, err := br.Discard(max(n, 0))
		return err
	}
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		size, err := strconv.ParseInt(strings.TrimSpace(string(line)), 16, 64)
		if err != nil {
			return err
		}
		if _, err := br.Discard(int(size) + 2); err != nil {
			return err
		}
		if size == 0 {
			return nil
		}
	}
}
