package clickhouse_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	ch "github.com/ClickHouse/clickhouse-go/v2"

	"github.com/heddle-gw/heddle/analytics/clickhouse"
)

// serverURL is the ClickHouse under test; an unreachable server fails the
// tests (run .ci/clickhouse.sh to start one).
func serverURL() string {
	if u := os.Getenv("HEDDLE_TEST_CLICKHOUSE_URL"); u != "" {
		return u
	}
	return "clickhouse://127.0.0.1:9000/default"
}

// freshDatabase creates heddle_test_<random> and returns a URL pointing at
// it; the database is dropped when tb ends.
func freshDatabase(tb testing.TB) string {
	tb.Helper()
	base := serverURL()
	opts, err := ch.ParseDSN(base)
	if err != nil {
		tb.Fatalf("HEDDLE_TEST_CLICKHOUSE_URL %q: %v", base, err)
	}
	conn, err := ch.Open(opts)
	if err != nil {
		tb.Fatalf("open ClickHouse: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := conn.Ping(ctx); err != nil {
		tb.Fatalf("ClickHouse at %s is unreachable (run .ci/clickhouse.sh): %v", base, err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "heddle_test_" + hex.EncodeToString(b[:])
	if err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		tb.Fatalf("create database: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name); err != nil {
			tb.Errorf("drop database %s: %v", name, err)
		}
		_ = conn.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// openFresh opens a migrated Store on a fresh database.
func openFresh(tb testing.TB) *clickhouse.Store {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := clickhouse.Open(ctx, freshDatabase(tb))
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}
