package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/internal/testwait"
)

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// freshPostgres creates a database for one test and drops it afterwards.
func freshPostgres(t testing.TB) string {
	t.Helper()
	admin := envOr("HEDDLE_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")
	db, err := sql.Open("pgx", admin)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("heddle_e2e_%d", rand.Uint64()%1e12)
	if _, err := db.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("postgres at %s: %v (start it with make services)", admin, err)
	}
	t.Cleanup(func() {
		_, _ = db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
		db.Close()
	})
	return strings.Replace(admin, "/postgres?", "/"+name+"?", 1)
}

// freshClickHouse creates a ClickHouse database for one test, dropped after.
func freshClickHouse(t testing.TB) (url string, conn clickhouse.Conn) {
	t.Helper()
	base := envOr("HEDDLE_TEST_CLICKHOUSE_URL", "clickhouse://127.0.0.1:9000/default")
	opts, err := clickhouse.ParseDSN(base)
	if err != nil {
		t.Fatal(err)
	}
	conn, err = clickhouse.Open(opts)
	if err == nil {
		err = conn.Ping(context.Background())
	}
	if err != nil {
		t.Fatalf("clickhouse at %s: %v (start it with make services)", base, err)
	}
	name := fmt.Sprintf("heddle_e2e_%d", rand.Uint64()%1e12)
	if err := conn.Exec(context.Background(), "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = conn.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name)
		conn.Close()
	})
	return strings.Replace(base, "/default", "/"+name, 1), conn
}

// TestHostedStores runs the journey on Postgres and ClickHouse: after a
// request, its attempt event and request record are in ClickHouse.
func TestHostedStores(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	pg := freshPostgres(t)
	chURL, ch := freshClickHouse(t)
	in := startHeddle(t, map[string]string{"HEDDLE_DATABASE_URL": pg, "HEDDLE_CLICKHOUSE_URL": chURL})
	a := signUp(t, in.URL, "ops@example.com", "openai", fakeSecret, up.URL+"/v1")
	resp, body := chat(t, in.URL, a.Key, `{"model":"gpt-5-mini","messages":[{"role":"user","content":"hello"}]}`)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	reqID := resp.Header.Get("x-heddle-request-id")
	ctx := context.Background()
	db := strings.TrimPrefix(chURL[strings.LastIndex(chURL, "/"):], "/")
	var served, route string
	var status, attempts int32
	testwait.Until(t, time.Minute, "request "+reqID+" in ClickHouse", func() bool {
		row := ch.QueryRow(ctx, "SELECT served_model, route_kind, status, attempts FROM "+db+".requests FINAL WHERE request_id = ?", reqID)
		return row.Scan(&served, &route, &status, &attempts) == nil
	})
	if served != "gpt-5-mini" || route != "explicit" || status != 200 || attempts != 1 {
		t.Errorf("clickhouse request row = %s %s %d %d", served, route, status, attempts)
	}
	var outcome, provider string
	if err := ch.QueryRow(ctx, "SELECT outcome, provider FROM "+db+".attempts FINAL WHERE request_id = ?", reqID).Scan(&outcome, &provider); err != nil {
		t.Fatalf("attempt row: %v", err)
	}
	if outcome != "served" || provider != "openai" {
		t.Errorf("clickhouse attempt row = %s %s", outcome, provider)
	}
}

// backends are the two shared-state set-ups: in process (one replica) and
// Redis (rate limits, idempotency and the response cache shared by replicas).
func backends() map[string]map[string]string {
	return map[string]map[string]string{
		"in-process": nil,
		"redis":      {"HEDDLE_REDIS_URL": envOr("HEDDLE_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")},
	}
}
