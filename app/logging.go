package app

import (
	"io"
	"log/slog"
	"sync"
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
// the request log alike.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
