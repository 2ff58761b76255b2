package app

import (
	"io"
	"log/slog"
	"sync"
	"time"
)

// newLogger returns a JSON logger at the configured level.
func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	switch level {
	case "debug":
		l = slog.LevelDebug
	case "warn":
		l = slog.LevelWarn
	case "error":
		l = slog.LevelError
	default:
		l = slog.LevelInfo
	}
	out := &lineWriter{w: w}
	return slog.New(&jsonHandler{JSONHandler: slog.NewJSONHandler(out, &slog.HandlerOptions{Level: l}), out: out})
}

// jsonHandler is slog's JSON handler over out, which the per-request line
// (requestlog.go) also writes to, built by hand: slog's generic handler was
// a tenth of the gateway's CPU per request under load.
type jsonHandler struct {
	*slog.JSONHandler
	out *lineWriter
}

func (h *jsonHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &jsonHandler{JSONHandler: h.JSONHandler.WithAttrs(as).(*slog.JSONHandler), out: h.out}
}

func (h *jsonHandler) WithGroup(name string) slog.Handler {
	return &jsonHandler{JSONHandler: h.JSONHandler.WithGroup(name).(*slog.JSONHandler), out: h.out}
}

// lineOut is the output of a logger from newLogger, nil for any other.
func lineOut(l *slog.Logger) *lineWriter {
	if h, ok := l.Handler().(*jsonHandler); ok {
		return h.out
	}
	return nil
}

// lineWriter writes whole lines to w one at a time, from slog's handler and
// the request log alike. After bufferRequests, request lines (writeLine)
// are gathered in a buffer of bounded size written when it is full, when
// another log line is written (so lines keep their order), at most
// requestLogFlush after the oldest one was buffered, and on close; every
// other line is written at once.
type lineWriter struct {
	mu    sync.Mutex
	w     io.Writer
	buf   []byte        // request lines not written yet
	max   int           // 0: request lines are written at once
	every time.Duration // bound of a request line's wait in buf
	timer *time.Timer   // flushes buf; armed when buf stops being empty
}

// Request lines wait at most requestLogFlush in a buffer of at most
// requestLogBuffer bytes (README, "Logs"): a process crash loses at most
// that last interval's request lines.
const (
	requestLogFlush  = 100 * time.Millisecond
	requestLogBuffer = 64 << 10
)

// Write writes p at once, after the request lines buffered before it.
func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) == 0 {
		return l.w.Write(p)
	}
	l.buf = append(l.buf, p...)
	if err := l.flushLocked(); err != nil {
		return 0, err
	}
	return len(p), nil
}

// bufferRequests makes writeLine buffer up to max bytes for at most every.
func (l *lineWriter) bufferRequests(max int, every time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.max, l.every = max, every
}

// writeLine writes one request line, buffered after bufferRequests. A
// failed write is dropped, as slog's handler drops it.
func (l *lineWriter) writeLine(p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.max == 0 || len(p) >= l.max {
		_ = l.flushLocked()
		_, _ = l.w.Write(p)
		return
	}
	if len(l.buf)+len(p) > l.max {
		_ = l.flushLocked()
	}
	if len(l.buf) == 0 {
		if l.timer == nil {
			l.timer = time.AfterFunc(l.every, l.flush)
		} else {
			l.timer.Reset(l.every)
		}
	}
	l.buf = append(l.buf, p...)
}

// flush writes the buffered request lines.
func (l *lineWriter) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	_ = l.flushLocked()
}

func (l *lineWriter) flushLocked() error {
	if len(l.buf) == 0 {
		return nil
	}
	_, err := l.w.Write(l.buf)
	l.buf = l.buf[:0]
	return err
}

// close writes the buffered request lines and writes later ones at once.
func (l *lineWriter) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	_ = l.flushLocked()
	l.max = 0
	if l.timer != nil {
		l.timer.Stop()
	}
}
