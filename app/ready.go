package app

import (
	"context"
	"time"

	"github.com/heddle-gw/heddle/gateway/httpapi"
)

// Readiness check values: a fixed vocabulary, since /readyz is public; the
// causes are in the logs.
const (
	checkOK          = "ok"
	checkDown        = "down"        // a required store: not ready
	checkUnavailable = "unavailable" // an optional store: served without it
)

// readyTimeout bounds one /readyz answer.
const readyTimeout = 2 * time.Second

// readiness checks the stores: the app database is required (money and
// auth fail closed without it: 503); ClickHouse (analytics spill to disk)
// and Redis (in-process fallbacks) only degrade the service (200).
func (c *components) readiness(ctx context.Context) httpapi.Readiness {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	r := httpapi.Readiness{Status: httpapi.ReadyOK, Checks: map[string]string{"database": checkOK}}
	if err := c.pingDatabase(ctx); err != nil {
		c.logger.WarnContext(ctx, "readiness: app database unreachable", "err", err)
		r.Checks["database"], r.Status = checkDown, httpapi.ReadyDown
	}
	degrade := func(name string, ok bool) {
		r.Checks[name] = checkOK
		if !ok {
			r.Checks[name] = checkUnavailable
			if r.Status == httpapi.ReadyOK {
				r.Status = httpapi.ReadyDegraded
			}
		}
	}
	if c.chStore != nil {
		degrade("clickhouse", c.chStore.Ping(ctx) == nil)
	}
	if c.redisLink != nil {
		degrade("redis", c.redisLink.healthy())
	}
	return r
}

func (c *components) pingDatabase(ctx context.Context) error {
	sqlDB, err := c.db.DB()
	if err != nil {
		return err
	}
	return sqlDB.PingContext(ctx)
}
