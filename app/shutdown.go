package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/gateway/httpapi"
)

// Bounds of the steps after HEDDLE_SHUTDOWN_TIMEOUT.
const (
	// interruptGrace is how long the turns still in flight at the deadline
	// have to end once interrupted: write their error event, record, settle.
	interruptGrace = 2 * time.Second
	// connCloseGrace is how long their connections then have to close.
	connCloseGrace = time.Second
	// spendFlushTimeout bounds the final budget spend flush, which runs
	// before anything else closes (spend is money; analytics can replay).
	spendFlushTimeout = 5 * time.Second
	// storesCloseTimeout bounds the flush of analytics and traces.
	storesCloseTimeout = 10 * time.Second
)

// drain stops srv: it refuses new connections and lets requests and
// streams in flight finish for up to timeout. Those still running then are
// interrupted (see httpapi.Handler.Interrupt): each client gets an error in
// its own wire format (a stream: a native error event before the close),
// and each turn is recorded with its attempts and settled before the stores
// close.
func drain(srv *fiber.App, data *httpapi.Handler, timeout time.Duration, logger *slog.Logger) {
	if err := srv.ShutdownWithTimeout(timeout); err == nil {
		return
	}
	logger.Warn("shutdown deadline reached; interrupting the requests still in flight",
		"timeout", timeout.String(), "open_connections", srv.Server().GetOpenConnectionsCount())
	ctx, cancel := context.WithTimeout(context.Background(), interruptGrace)
	defer cancel()
	if err := data.Interrupt(ctx); err != nil {
		logger.Error("interrupted requests did not finish", "err", err)
	}
	// Let the connections write the end of their responses.
	deadline := time.NewTimer(connCloseGrace)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for srv.Server().GetOpenConnectionsCount() > 0 {
		select {
		case <-deadline.C:
			return
		case <-tick.C:
		}
	}
}
