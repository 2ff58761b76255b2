package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// debugMux serves Go's profiles under /debug/pprof/. It is only ever
// mounted on the operator listener (HEDDLE_DEBUG_ADDR).
func debugMux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// startDebug listens on addr and serves debugMux until ctx ends; an empty
// addr starts nothing. A listen error is returned at once (the operator asked
// for the listener).
func startDebug(ctx context.Context, addr string, logger *slog.Logger) error {
	if addr == "" {
		return nil
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("app: HEDDLE_DEBUG_ADDR: %w", err)
	}
	// A CPU profile or trace runs for its ?seconds= (30 s by default).
	srv := &http.Server{Handler: debugMux(), ReadHeaderTimeout: 5 * time.Second, WriteTimeout: 2 * time.Minute}
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("debug listener", "err", err)
		}
	}()
	context.AfterFunc(ctx, func() { _ = srv.Close() })
	logger.InfoContext(ctx, "debug listener serving pprof", "addr", l.Addr().String())
	return nil
}
