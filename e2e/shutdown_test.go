package e2e

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
)

// TestGracefulShutdown: SIGINT while a request is in flight lets it finish
// (200), the process exits cleanly, and the request's analytics row was
// flushed to the store before exit.
func TestGracefulShutdown(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	up.Script("gpt-5-mini", dispatchtest.SlowFirstByte(1500*time.Millisecond))
	in := startHeddle(t, nil)
	a := signUp(t, in.URL, "drain@example.com", "openai", fakeSecret, up.URL+"/v1")
	type result struct {
		status int
		id     string
	}
	done := make(chan result, 1)
	go func() {
		resp, _ := chat(t, in.URL, a.Key, `{"model":"gpt-5-mini","messages":[{"role":"user","content":"slow one"}]}`)
		done <- result{resp.StatusCode, resp.Header.Get("x-heddle-request-id")}
	}()
	// Signal once the request is waiting on the upstream.
	tick := time.NewTicker(5 * time.Millisecond)
	for len(up.Requests()) == 0 {
		select {
		case r := <-done:
			t.Fatalf("the request ended (%d) before reaching the upstream", r.status)
		case <-tick.C:
		}
	}
	tick.Stop()
	if err := in.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(time.Minute): // a watchdog, not a latency bound
		t.Fatal("the in-flight request did not finish after SIGINT")
	}
	if r.status != 200 {
		t.Fatalf("in-flight request got %d during shutdown", r.status)
	}
	exited := make(chan error, 1)
	go func() { exited <- in.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("heddle exited with %v\n%s", err, in.logs.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("heddle did not exit after draining")
	}
	db, err := sql.Open("sqlite", filepath.Join(in.DataDir, "heddle.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var status int
	if err := db.QueryRowContext(context.Background(), `SELECT status FROM requests WHERE request_id = ?`, r.id).Scan(&status); err != nil || status != 200 {
		t.Errorf("request row after shutdown: status %d, %v", status, err)
	}
}
