package app

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/gateway/httpapi"
	"github.com/heddle-gw/heddle/internal/tcpgate"
	"github.com/heddle-gw/heddle/internal/testdb"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// TestReadinessNamesTheDegradedStore: ClickHouse and Redis down degrade the
// answer (still served); the app database down makes it "down" (503).
func TestReadinessNamesTheDegradedStore(t *testing.T) {
	ctx := context.Background()
	logger := slog.New(slog.DiscardHandler)
	d := testdb.SQLite(t)
	chGate, redisGate := tcpgate.New(t, "127.0.0.1:9"), tcpgate.New(t, testdb.RedisAddr(t))
	ch, err := newLazyClickHouse("clickhouse://"+chGate.Addr()+"/default", logger)
	if err != nil {
		t.Fatal(err)
	}
	c := &components{cfg: Config{RedisURL: "redis://" + redisGate.Addr() + "/0"}, logger: logger, db: d.DB, chStore: ch}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := c.openRedis(cctx); err != nil {
		t.Fatal(err)
	}
	defer c.redis.Close()

	want := func(status string, checks map[string]string) {
		t.Helper()
		r := c.readiness(ctx)
		if r.Status != status || len(r.Checks) != len(checks) {
			t.Fatalf("readiness = %+v, want %s %v", r, status, checks)
		}
		for k, v := range checks {
			if r.Checks[k] != v {
				t.Fatalf("readiness = %+v, want %s %v", r, status, checks)
			}
		}
	}
	want(httpapi.ReadyDegraded, map[string]string{"database": "ok", "clickhouse": "unavailable", "redis": "unavailable"})
	redisGate.Open()
	testwait.Until(t, 15*time.Second, "redis healthy", c.redisLink.healthy)
	want(httpapi.ReadyDegraded, map[string]string{"database": "ok", "clickhouse": "unavailable", "redis": "ok"})

	sqlDB, err := d.DB.DB()
	if err != nil {
		t.Fatal(err)
	}
	_ = sqlDB.Close()
	want(httpapi.ReadyDown, map[string]string{"database": "down", "clickhouse": "unavailable", "redis": "ok"})
}
