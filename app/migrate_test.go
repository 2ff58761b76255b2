package app

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	ch "github.com/ClickHouse/clickhouse-go/v2"
)

// TestMigrateCommandMigratesClickHouse: `heddle migrate` creates the
// analytics tables before it says so, and fails when ClickHouse is down
// (serve would wait for it; a migration must not pretend).
func TestMigrateCommandMigratesClickHouse(t *testing.T) {
	conn, db, url := freshClickHouseDB(t)
	ctx := context.Background()

	var out bytes.Buffer
	e := map[string]string{"HEDDLE_DATA_DIR": t.TempDir(), "HEDDLE_CLICKHOUSE_URL": url}
	if err := run(ctx, []string{"migrate"}, cliEnv{getenv: env(e), stdout: &out, stderr: &out}); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out.String())
	}
	var tables uint64
	if err := conn.QueryRow(ctx, "SELECT count() FROM system.tables WHERE database = ? AND name IN ('requests', 'attempts')", db).Scan(&tables); err != nil || tables != 2 {
		t.Fatalf("analytics tables after migrate: %d (%v)", tables, err)
	}

	e["HEDDLE_CLICKHOUSE_URL"] = "clickhouse://127.0.0.1:9/" + db
	if err := run(ctx, []string{"migrate"}, cliEnv{getenv: env(e), stdout: &out, stderr: &out}); err == nil {
		t.Fatal("migrate with ClickHouse down succeeded")
	}
}

// freshClickHouseDB creates a database of its own on the test ClickHouse
// (HEDDLE_TEST_CLICKHOUSE_URL, else the local server), dropped when the
// test ends, and returns a connection to the server, the database's name
// and its URL.
func freshClickHouseDB(t *testing.T) (ch.Conn, string, string) {
	t.Helper()
	base := os.Getenv("HEDDLE_TEST_CLICKHOUSE_URL")
	if base == "" {
		base = "clickhouse://127.0.0.1:9000/default"
	}
	opts, err := ch.ParseDSN(base)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := ch.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	db := fmt.Sprintf("heddle_app_%d", rand.Uint64()%1e12)
	if err := conn.Exec(context.Background(), "CREATE DATABASE "+db); err != nil {
		t.Fatalf("clickhouse at %s: %v", base, err)
	}
	t.Cleanup(func() {
		_ = conn.Exec(context.Background(), "DROP DATABASE IF EXISTS "+db)
		_ = conn.Close()
	})
	return conn, db, strings.Replace(base, "/default", "/"+db, 1)
}
