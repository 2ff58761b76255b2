package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/internal/tcpgate"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// readyz is the /readyz answer.
type readyz struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks"`
}

func getReadyz(t *testing.T, base string) (int, readyz) {
	t.Helper()
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r readyz
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatalf("/readyz is not JSON: %v", err)
	}
	return resp.StatusCode, r
}

// TestDegradedStartClickHouseAndRedisDown: Heddle starts while ClickHouse and
// Redis refuse connections, answers requests (analytics spilled to disk,
// rate limits and the cache in process), reports itself degraded, and once
// both are back replays every row into ClickHouse and reports ok.
func TestDegradedStartClickHouseAndRedisDown(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	chURL, ch := freshClickHouse(t)
	chGate := tcpgate.New(t, "127.0.0.1:9000")
	redisGate := tcpgate.New(t, strings.TrimPrefix(strings.TrimSuffix(envOr("HEDDLE_TEST_REDIS_URL", "redis://127.0.0.1:6379/0"), "/0"), "redis://"))
	db := chURL[strings.LastIndex(chURL, "/")+1:]
	in := startHeddle(t, map[string]string{
		"HEDDLE_CLICKHOUSE_URL": "clickhouse://" + chGate.Addr() + "/" + db,
		"HEDDLE_REDIS_URL":      "redis://" + redisGate.Addr() + "/0",
	})

	status, r := getReadyz(t, in.URL)
	if status != 200 || r.Status != "degraded" || r.Checks["database"] != "ok" ||
		r.Checks["clickhouse"] != "unavailable" || r.Checks["redis"] != "unavailable" {
		t.Fatalf("/readyz with ClickHouse and Redis down = %d %+v", status, r)
	}

	a := signUp(t, in.URL, "degraded@example.com", "openai", fakeSecret, up.URL+"/v1")
	const n = 6
	ids := map[string]bool{}
	for i := range n {
		resp, body := chat(t, in.URL, a.Key, fmt.Sprintf(`{"model":"gpt-5-mini","messages":[{"role":"user","content":"degraded %d"}]}`, i))
		if resp.StatusCode != 200 {
			t.Fatalf("request %d with ClickHouse and Redis down: %d %s", i, resp.StatusCode, body)
		}
		ids[resp.Header.Get("x-heddle-request-id")] = true
	}
	if len(ids) != n {
		t.Fatalf("request ids: %v", ids)
	}
	// The rows are on disk, not lost: the spill grows while ClickHouse is away.
	testwait.Until(t, 20*time.Second, "analytics spilled", func() bool { return metricValue(t, in.URL, "heddle_sink_spill_bytes") > 0 })

	chGate.Open()
	redisGate.Open()
	ctx := context.Background()
	testwait.Until(t, 60*time.Second, "every answered request in ClickHouse", func() bool {
		var got uint64
		err := ch.QueryRow(ctx, "SELECT count() FROM "+db+".requests FINAL WHERE org_id = ?", a.OrgID).Scan(&got)
		return err == nil && got == n
	})
	var attempts uint64
	if err := ch.QueryRow(ctx, "SELECT count() FROM "+db+".attempts FINAL WHERE org_id = ?", a.OrgID).Scan(&attempts); err != nil || attempts != n {
		t.Errorf("attempt rows in ClickHouse = %d (%v), want %d", attempts, err, n)
	}
	testwait.Until(t, 20*time.Second, "/readyz ok", func() bool {
		status, r := getReadyz(t, in.URL)
		return status == 200 && r.Status == "ok" && r.Checks["clickhouse"] == "ok" && r.Checks["redis"] == "ok"
	})
	testwait.Until(t, 20*time.Second, "spill drained", func() bool { return metricValue(t, in.URL, "heddle_sink_spill_bytes") == 0 })
}

// TestDegradedDatabaseDownFailsWithOneLine: without the app database Heddle
// does not start, and says why on one line.
func TestDegradedDatabaseDownFailsWithOneLine(t *testing.T) {
	gate := tcpgate.New(t, "127.0.0.1:5432")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := runCLI(ctx, t, map[string]string{
		"HEDDLE_DATABASE_URL": "postgres://postgres@" + gate.Addr() + "/postgres?sslmode=disable&connect_timeout=2",
		"HEDDLE_DATA_DIR":     t.TempDir(), "HEDDLE_ADDR": "127.0.0.1:0",
	}, "serve")
	if err == nil {
		t.Fatalf("serve without a database exited 0: %s", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "heddle: app: reach postgres database:") {
		t.Fatalf("want one line \"heddle: app: reach postgres database: ...\", got:\n%s", out)
	}
}

// metricValue returns the value of the unlabelled series name on /metrics
// (-1 when it is absent).
func metricValue(t *testing.T, base, name string) float64 {
	t.Helper()
	v, n := find(scrape(t, base), name, nil)
	if n == 0 {
		return -1
	}
	return v
}
