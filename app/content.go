package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	anasql "github.com/heddle-gw/heddle/analytics/sqlstore"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/tenancy"
)

// analytics.Contents is the gateway's content keeper: it reads the opt-in
// per organisation (cached, fail closed) and seals through the vault.
var (
	_ gateway.ContentKeeper   = (*analytics.Contents)(nil)
	_ analytics.ContentSealer = (*tenancy.Vault)(nil)
)

// newContents builds the opt-in content storage (SPEC 8) over the app
// database (also when analytics go to ClickHouse) and the vault.
func newContents(c *components) *analytics.Contents {
	return analytics.NewContents(anasql.New(c.db), c.vault, analytics.ContentsConfig{})
}

// contentJanitor deletes expired stored content.
type contentJanitor interface {
	DeleteExpired(ctx context.Context) (int64, error)
}

// runContentJanitor deletes expired content at once and then every
// interval until ctx ends. A failed sweep is logged and retried next time
// (expired rows are unreadable meanwhile: reads filter on expiry).
func runContentJanitor(ctx context.Context, j contentJanitor, interval time.Duration, logger *slog.Logger) {
	sweep := func() {
		sctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		n, err := j.DeleteExpired(sctx)
		if err != nil {
			logger.WarnContext(ctx, "expired content not deleted (retried next sweep)", "err", err)
			return
		}
		if n > 0 {
			logger.InfoContext(ctx, "expired request content deleted", "rows", n)
		}
	}
	sweep()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			sweep()
		}
	}
}
