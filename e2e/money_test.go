package e2e

import (
	"context"
	"database/sql"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
)

// requestRow is the money part of one request row.
type requestRow struct {
	id, decision, code   string
	status, attempts     int
	tokens, cost, saving int64
}

// orgRequests reads the organisation's request rows from the stopped
// instance's embedded analytics store, and the attempt rows per request.
func orgRequests(t *testing.T, in *instance, orgID string) ([]requestRow, map[string][]string, *sql.DB) {
	t.Helper()
	in.stop(t)
	db, err := sql.Open("sqlite", filepath.Join(in.DataDir, "heddle.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ctx := context.Background()
	rows, err := db.QueryContext(ctx, `SELECT request_id, decision, error_code, status, attempts, input_tokens + output_tokens,
		cost_micros, savings_micros FROM requests WHERE org_id = ? ORDER BY time`, orgID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []requestRow
	for rows.Next() {
		var r requestRow
		if err := rows.Scan(&r.id, &r.decision, &r.code, &r.status, &r.attempts, &r.tokens, &r.cost, &r.saving); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	attempts := map[string][]string{}
	arows, err := db.QueryContext(ctx, `SELECT request_id, outcome, reason, cost_micros FROM attempts WHERE org_id = ? ORDER BY request_id, attempt_index`, orgID)
	if err != nil {
		t.Fatal(err)
	}
	defer arows.Close()
	for arows.Next() {
		var id, outcome, reason string
		var cost int64
		if err := arows.Scan(&id, &outcome, &reason, &cost); err != nil {
			t.Fatal(err)
		}
		attempts[id] = append(attempts[id], outcome+":"+reason+":"+itoa(int(cost)))
	}
	return out, attempts, db
}

// TestIdempotentMoney: three concurrent requests with one Idempotency-Key
// and a later repeat reach the upstream once, and only that one is billed:
// one request row with its cost and attempt, three priced at 0 and noted as
// an idempotent join or replay with no attempt rows, and the organisation's
// spend is one answer's (it was four).
func TestIdempotentMoney(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	in := startHeddle(t, nil)
	a := signUp(t, in.URL, "idem-money@example.com", "openai", fakeSecret, up.URL+"/v1")
	up.Script("gpt-5-mini", dispatchtest.SlowFirstByte(300_000_000))
	body := `{"model":"gpt-5-mini","messages":[{"role":"user","content":"charge order 42"}]}`
	idem := func() int {
		req, _ := http.NewRequest("POST", in.URL+"/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+a.Key)
		req.Header.Set("Idempotency-Key", "order-42")
		req.Header.Set("Cache-Control", "no-cache")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return 0
		}
		defer resp.Body.Close()
		b := new(strings.Builder)
		_, _ = io_copy(b, resp)
		if !strings.Contains(b.String(), "Hello from gpt-5-mini") {
			t.Errorf("duplicate answered %d %s", resp.StatusCode, b)
		}
		return resp.StatusCode
	}
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() { defer wg.Done(); idem() }()
	}
	wg.Wait()
	if code := idem(); code != 200 {
		t.Errorf("replay: %d", code)
	}
	if n := len(up.Requests()); n != 1 {
		t.Fatalf("duplicates reached the upstream %d times, want 1", n)
	}

	rows, attempts, db := orgRequests(t, in, a.OrgID)
	if len(rows) != 4 {
		t.Fatalf("%d request rows, want 4: %+v", len(rows), rows)
	}
	// 10 input tokens at $0.25/M + 5 output at $2/M = 12.5 -> 13 micros.
	var owners, joins, replays int
	for _, r := range rows {
		switch {
		case !strings.Contains(r.decision, "idempotent:"):
			owners++
			if r.cost != 13 || r.tokens != 15 || r.attempts != 1 || len(attempts[r.id]) != 1 || attempts[r.id][0] != "served::13" {
				t.Errorf("the owner's row %+v attempts %v, want 13 micros for 15 tokens and one served attempt", r, attempts[r.id])
			}
		default:
			if strings.HasSuffix(r.decision, " idempotent:join") {
				joins++
			} else if strings.HasSuffix(r.decision, " idempotent:replay") {
				replays++
			}
			if r.cost != 0 || r.tokens != 0 || r.attempts != 0 || r.saving != 0 || r.status != 200 || r.code != "" || len(attempts[r.id]) != 0 {
				t.Errorf("a duplicate's row %+v attempts %v, want no cost, tokens or attempts", r, attempts[r.id])
			}
		}
	}
	if owners != 1 || joins+replays != 3 || replays < 1 {
		t.Errorf("%d owners, %d joins, %d replays; want 1 owner and 3 duplicates, the last a replay", owners, joins, replays)
	}
	var spent int64
	if err := db.QueryRow(`SELECT coalesce(sum(micros), 0) FROM budget_spend WHERE scope = ?`, "org:"+a.OrgID+"/day").Scan(&spent); err != nil {
		t.Fatal(err)
	}
	if spent != 13 {
		t.Errorf("the organisation's day spend is %d micros, want one answer's 13", spent)
	}
}

// TestCommittedStreamRecord: a stream cut after its first content (the
// client got 200, then an error event) is recorded with the 200 the client
// saw, the code dispatch.stream_interrupted (so it counts as an error) and
// why in the decision; it was recorded as 500 internal.error.
func TestCommittedStreamRecord(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	in := startHeddle(t, nil)
	a := signUp(t, in.URL, "committed@example.com", "openai", fakeSecret, up.URL+"/v1")
	up.Script("gpt-5-mini", dispatchtest.CutAfter(3))
	resp, body := chat(t, in.URL, a.Key, `{"model":"gpt-5-mini","stream":true,"messages":[{"role":"user","content":"tell me a long story"}]}`)
	if resp.StatusCode != 200 || !strings.Contains(body, "upstream_stream_interrupted") {
		t.Fatalf("the client got %d %s, want 200 and the stream's error event", resp.StatusCode, body)
	}
	rows, attempts, _ := orgRequests(t, in, a.OrgID)
	if len(rows) != 1 {
		t.Fatalf("request rows %+v", rows)
	}
	r := rows[0]
	if r.status != 200 || r.code != "dispatch.stream_interrupted" || !strings.HasSuffix(r.decision, " interrupted:transport") || r.attempts != 1 {
		t.Errorf("request row %+v, want 200 dispatch.stream_interrupted noted interrupted:transport", r)
	}
	if got := attempts[r.id]; len(got) != 1 || !strings.HasPrefix(got[0], "failed:committed:") {
		t.Errorf("attempt rows %v, want one failed:committed", got)
	}
}

// TestSingleUsableBindingRetries: gpt-5-mini binds openai and openrouter;
// an organisation with only an openai credential gets openai's same-target
// retries (the plan's other target is unusable), and the timeline still
// shows openrouter skipped as provider_not_configured when they run out.
// Before, the first 503 failed over to the unconfigured binding and the
// turn failed with no retry.
func TestSingleUsableBindingRetries(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	in := startHeddle(t, nil)
	a := signUp(t, in.URL, "one-binding@example.com", "openai", fakeSecret, up.URL+"/v1")
	s503 := dispatchtest.Status(503)
	up.Script("gpt-5-mini", s503, s503, dispatchtest.OK("third time lucky"))
	resp, body := chat(t, in.URL, a.Key, `{"model":"gpt-5-mini","messages":[{"role":"user","content":"retry me"}]}`)
	if resp.StatusCode != 200 || !strings.Contains(body, "third time lucky") {
		t.Fatalf("retried turn: %d %s", resp.StatusCode, body)
	}
	up.Script("gpt-5-mini", s503, s503, s503)
	resp, body = chat(t, in.URL, a.Key, `{"model":"gpt-5-mini","messages":[{"role":"user","content":"keep failing"}]}`)
	if resp.StatusCode != 502 || resp.Header.Get("x-heddle-error") != "dispatch.attempts_exhausted" {
		t.Errorf("exhausted turn: %d %q %s", resp.StatusCode, resp.Header.Get("x-heddle-error"), body)
	}
	if n := len(up.Requests()); n != 6 || up.Pending() != 0 {
		t.Fatalf("the upstream got %d requests with %d steps unplayed, want 6 and 0", n, up.Pending())
	}
	rows, attempts, _ := orgRequests(t, in, a.OrgID)
	if len(rows) != 2 {
		t.Fatalf("request rows %+v", rows)
	}
	want := [][]string{
		{"failed:upstream_5xx:0", "failed:upstream_5xx:0", "served::13"},
		{"failed:upstream_5xx:0", "failed:upstream_5xx:0", "failed:upstream_5xx:0", "skipped:provider_not_configured:0"},
	}
	for i, r := range rows {
		if got := attempts[r.id]; strings.Join(got, ",") != strings.Join(want[i], ",") {
			t.Errorf("turn %d attempts %v, want %v", i, got, want[i])
		}
	}
	if rows[0].attempts != 3 || rows[0].cost != 13 || rows[1].attempts != 3 || rows[1].status != 502 {
		t.Errorf("request rows %+v", rows)
	}
}
