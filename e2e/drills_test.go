package e2e

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/internal/tcpgate"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// The operations drills of issue 11, each run against the built binary and
// reporting its numbers with t.Logf (go test -v).

// openSQLite opens the stopped instance's app database.
func openSQLite(t *testing.T, in *instance) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(in.DataDir, "heddle.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// orgSpend is the organisation's spend in the app database this month.
func orgSpend(t *testing.T, db *sql.DB, orgID string) int64 {
	t.Helper()
	var micros sql.NullInt64
	if err := db.QueryRowContext(context.Background(), `SELECT SUM(micros) FROM budget_spend WHERE scope = ?`,
		"org:"+orgID+"/month").Scan(&micros); err != nil {
		t.Fatal(err)
	}
	return micros.Int64
}

// requestIDSet is the set of request ids of orgID in table (requests or
// attempts) of the embedded analytics store.
func requestIDSet(t *testing.T, db *sql.DB, table, orgID string) map[string]bool {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), `SELECT DISTINCT request_id FROM `+table+` WHERE org_id = ?`, orgID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	ids := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids[id] = true
	}
	return ids
}

// waitExit waits for the process to end after a signal (a watchdog bound).
func waitExit(t *testing.T, in *instance) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- in.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Logf("heddle exited with %v", err)
		}
	case <-time.After(30 * time.Second):
		_ = in.cmd.Process.Kill()
		<-done
		t.Fatalf("heddle did not exit\n%s", in.logs.String())
	}
}

// TestDrillShutdownInterruptsStreams: SIGTERM with a 3 s deadline while 20
// Anthropic streams are open and stalled mid-answer. At the deadline each
// client gets Anthropic's error event (server_shutting_down) before the
// close, and each stream leaves a request row (200, interrupted:shutdown),
// its attempt row and its spend, which the budget store holds too.
func TestDrillShutdownInterruptsStreams(t *testing.T) {
	const streams = 20
	up := dispatchtest.NewUpstream(t)
	for range streams {
		up.Script("", dispatchtest.StallAfter(4)) // message_start, ping, block_start, "Hello"
	}
	in := startHeddle(t, map[string]string{"HEDDLE_SHUTDOWN_TIMEOUT": "3s"})
	a := signUp(t, in.URL, "drill-streams@example.com", "anthropic", fakeSecret, up.URL)

	var started sync.WaitGroup
	started.Add(streams)
	bodies := make([]string, streams)
	var wg sync.WaitGroup
	for i := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf(`{"model":"claude-sonnet-4-5","max_tokens":256,"stream":true,"messages":[{"role":"user","content":"long story %d"}]}`, i)
			req, _ := http.NewRequest("POST", in.URL+"/v1/messages", strings.NewReader(body))
			req.Header.Set("x-api-key", a.Key)
			req.Header.Set("anthropic-version", "2023-06-01")
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				started.Done()
				return
			}
			defer resp.Body.Close()
			var got strings.Builder
			sc := bufio.NewScanner(resp.Body)
			seen := false
			for sc.Scan() {
				got.WriteString(sc.Text() + "\n")
				if !seen && strings.Contains(sc.Text(), "text_delta") {
					seen = true
					started.Done()
				}
			}
			if !seen {
				started.Done()
			}
			bodies[i] = got.String()
		}()
	}
	started.Wait()
	began := time.Now()
	if err := in.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitExit(t, in)
	wg.Wait()
	t.Logf("drill: SIGTERM with HEDDLE_SHUTDOWN_TIMEOUT=3s during %d streams: exited after %v", streams, time.Since(began).Round(10*time.Millisecond))

	withEvent := 0
	for i, b := range bodies {
		if strings.Contains(b, "event: error") && strings.Contains(b, "server is shutting down") {
			withEvent++
		} else {
			t.Errorf("stream %d ended without Anthropic's shutdown error event:\n%s", i, b)
		}
	}
	rows, attempts, _ := orgRequests(t, in, a.OrgID)
	var cost int64
	withSpend, okAttempts := 0, 0
	for _, r := range rows {
		if r.status != 200 || r.code != "dispatch.stream_interrupted" || !strings.HasSuffix(r.decision, " interrupted:shutdown") {
			t.Errorf("request row %+v, want 200 dispatch.stream_interrupted interrupted:shutdown", r)
		}
		if r.cost > 0 {
			withSpend++
		}
		cost += r.cost
		if got := attempts[r.id]; len(got) == 1 && strings.HasPrefix(got[0], "failed:committed:") {
			okAttempts++
		} else {
			t.Errorf("attempt rows of %s: %v, want one failed:committed", r.id, got)
		}
	}
	spend := orgSpend(t, openSQLite(t, in), a.OrgID)
	t.Logf("drill: %d of %d clients got the error event; %d request rows, %d with spend, %d with their attempt row; cost %d micro-dollars in analytics, %d in the budget store",
		withEvent, streams, len(rows), withSpend, okAttempts, cost, spend)
	if len(rows) != streams || withSpend != streams || cost != spend {
		t.Errorf("want %d request rows with spend and the same spend in the budget store", streams)
	}
}

// TestDrillKill9UnderLoad: kill -9 while 8 clients send requests; after a
// restart on the same data directory the journal is replayed and every
// answered request has its request and attempt rows, but for the last few
// milliseconds before the kill (the journal's group-commit window).
func TestDrillKill9UnderLoad(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	in := startHeddle(t, nil)
	a := signUp(t, in.URL, "drill-kill@example.com", "openai", fakeSecret, up.URL+"/v1")

	type answer struct {
		id string
		at time.Time
	}
	var (
		mu       sync.Mutex
		answered []answer
		stop     atomic.Bool
		wg       sync.WaitGroup
	)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				body := fmt.Sprintf(`{"model":"gpt-5-mini","messages":[{"role":"user","content":"load %d-%d"}]}`, w, i)
				req, _ := http.NewRequest("POST", in.URL+"/v1/chat/completions", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+a.Key)
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					return // the process is gone
				}
				var b strings.Builder
				_, err = io_copy(&b, resp)
				resp.Body.Close()
				if err == nil && resp.StatusCode == 200 {
					mu.Lock()
					answered = append(answered, answer{resp.Header.Get("x-heddle-request-id"), time.Now()})
					mu.Unlock()
				}
			}
		}()
	}
	testwait.Until(t, 60*time.Second, "2000 requests answered under load", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(answered) >= 2000
	})
	mu.Lock()
	killedAt := time.Now()
	if err := in.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	mu.Unlock()
	stop.Store(true)
	wg.Wait()
	_ = in.cmd.Wait()
	journals, _ := filepath.Glob(filepath.Join(in.DataDir, "spill", "*.wal"))

	next := startHeddle(t, map[string]string{"HEDDLE_DATA_DIR": in.DataDir})
	testwait.Until(t, 60*time.Second, "journal replayed", func() bool {
		return metricValue(t, next.URL, "heddle_sink_spill_segments") == 0 && metricValue(t, next.URL, "heddle_sink_queue_depth") == 0
	})
	next.stop(t)
	db := openSQLite(t, next)
	have := requestIDSet(t, db, "requests", a.OrgID)
	withAttempt := requestIDSet(t, db, "attempts", a.OrgID)
	var lost, noAttempt, lostOld int
	var latest time.Duration
	for _, ans := range answered {
		// The journal's window is 2 ms (attempt rows reach it through one
		// more queue); a quarter second leaves room for a loaded machine's
		// scheduling, not for a batch (1 s, the loss before the journal).
		old := killedAt.Sub(ans.at) > 250*time.Millisecond
		switch {
		case !have[ans.id]:
			lost++
			latest = max(latest, killedAt.Sub(ans.at))
			if old {
				lostOld++
			}
		case !withAttempt[ans.id]:
			noAttempt++
			if old {
				lostOld++
			}
		}
	}
	t.Logf("drill: kill -9 at c=8 after %d answered requests (%d journal files left); after restart %d of them have their request row (lost %d = %.2f%%, the oldest lost answered %v before the kill), %d more lack their attempt row",
		len(answered), len(journals), len(answered)-lost, lost, 100*float64(lost)/float64(len(answered)), latest.Round(time.Microsecond), noAttempt)
	if lostOld > 0 {
		t.Errorf("%d requests answered more than 250ms before the kill lack their request or attempt row", lostOld)
	}
}

// TestDrillShutdownClickHouseDown: ClickHouse goes away, then SIGTERM. The
// budget spend is flushed first (its own deadline) and analytics rows are
// spilled; after a restart with ClickHouse back, the spend in ClickHouse
// equals the spend in the budget store and every answered request is there.
func TestDrillShutdownClickHouseDown(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	chURL, ch := freshClickHouse(t)
	gate := tcpgate.New(t, "127.0.0.1:9000")
	gate.Open()
	db := chURL[strings.LastIndex(chURL, "/")+1:]
	env := map[string]string{"HEDDLE_CLICKHOUSE_URL": "clickhouse://" + gate.Addr() + "/" + db}
	in := startHeddle(t, env)
	a := signUp(t, in.URL, "drill-chdown@example.com", "openai", fakeSecret, up.URL+"/v1")
	testwait.Until(t, 30*time.Second, "ClickHouse ready", func() bool {
		_, r := getReadyz(t, in.URL)
		return r.Checks["clickhouse"] == "ok"
	})
	const n = 40
	for i := range n {
		if i == n/2 {
			gate.Shut()
		}
		resp, body := chat(t, in.URL, a.Key, fmt.Sprintf(`{"model":"gpt-5-mini","messages":[{"role":"user","content":"money %d"}]}`, i))
		if resp.StatusCode != 200 {
			t.Fatalf("request %d: %d %s", i, resp.StatusCode, body)
		}
	}
	began := time.Now()
	if err := in.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitExit(t, in)
	stopped := time.Since(began)
	spend := orgSpend(t, openSQLite(t, in), a.OrgID)

	gate.Open()
	env["HEDDLE_DATA_DIR"] = in.DataDir
	next := startHeddle(t, env)
	ctx := context.Background()
	var rows uint64
	var cost int64
	testwait.Until(t, 60*time.Second, "every request replayed into ClickHouse", func() bool {
		err := ch.QueryRow(ctx, "SELECT count(), toInt64(sum(cost_micros)) FROM "+db+".requests FINAL WHERE org_id = ?", a.OrgID).Scan(&rows, &cost)
		return err == nil && rows == n
	})
	next.stop(t)
	t.Logf("drill: shutdown with ClickHouse down took %v; spend in the budget store %d micro-dollars, in ClickHouse after replay %d (%d of %d request rows)",
		stopped.Round(10*time.Millisecond), spend, cost, rows, n)
	if spend == 0 || spend != cost {
		t.Errorf("spend in the store %d != spend in analytics %d", spend, cost)
	}
}

// TestDrillStartClickHouseDown: Heddle starts with ClickHouse down and
// serves 8 clients; once ClickHouse is back the spill is replayed and the
// rows equal the answered requests.
func TestDrillStartClickHouseDown(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	chURL, ch := freshClickHouse(t)
	gate := tcpgate.New(t, "127.0.0.1:9000")
	db := chURL[strings.LastIndex(chURL, "/")+1:]
	in := startHeddle(t, map[string]string{"HEDDLE_CLICKHOUSE_URL": "clickhouse://" + gate.Addr() + "/" + db})
	a := signUp(t, in.URL, "drill-chstart@example.com", "openai", fakeSecret, up.URL+"/v1")
	const perClient, clients = 50, 8
	var answered atomic.Int64
	var wg sync.WaitGroup
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perClient {
				resp, _ := chat(t, in.URL, a.Key, fmt.Sprintf(`{"model":"gpt-5-mini","messages":[{"role":"user","content":"down %d-%d"}]}`, w, i))
				if resp.StatusCode == 200 {
					answered.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	testwait.Until(t, 30*time.Second, "every row in the spill", func() bool {
		return metricValue(t, in.URL, "heddle_sink_spill_bytes") > 0 && metricValue(t, in.URL, "heddle_sink_queue_depth") == 0
	})
	spilled := metricValue(t, in.URL, "heddle_sink_spill_bytes")
	gate.Open()
	ctx := context.Background()
	var rows uint64
	testwait.Until(t, 60*time.Second, "rows == answered", func() bool {
		err := ch.QueryRow(ctx, "SELECT count() FROM "+db+".requests FINAL WHERE org_id = ?", a.OrgID).Scan(&rows)
		return err == nil && int64(rows) == answered.Load()
	})
	var attempts uint64
	if err := ch.QueryRow(ctx, "SELECT count() FROM "+db+".attempts FINAL WHERE org_id = ?", a.OrgID).Scan(&attempts); err != nil {
		t.Fatal(err)
	}
	t.Logf("drill: started with ClickHouse down, %d of %d requests answered at c=%d, %.0f bytes spilled; after ClickHouse returned: %d request rows, %d attempt rows",
		answered.Load(), perClient*clients, clients, spilled, rows, attempts)
	if answered.Load() != perClient*clients || int64(attempts) != answered.Load() {
		t.Errorf("answered %d, attempt rows %d", answered.Load(), attempts)
	}
}
