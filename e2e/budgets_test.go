package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
)

// orgBudgets is the part of GET /api/v1/budgets this test reads.
type orgBudgets struct {
	Org struct {
		Daily struct {
			LimitMicros int64  `json:"limit_micros"`
			Mode        string `json:"mode"`
			SpentMicros int64  `json:"spent_micros"`
		} `json:"daily"`
	} `json:"org"`
	Keys []struct {
		ID    string `json:"id"`
		Daily struct {
			SpentMicros int64 `json:"spent_micros"`
		} `json:"daily"`
	} `json:"keys"`
}

func chatBody(i int) string {
	return `{"model":"gpt-5-mini","messages":[{"role":"user","content":"budget question ` + itoa(i) + `"}]}`
}

func messagesBody(i int) string {
	return `{"model":"gpt-5-mini","max_tokens":64,"messages":[{"role":"user","content":"budget message ` + itoa(i) + `"}]}`
}

// wantOrgBudget402 checks a refusal by the organisation's day budget in
// OpenAI's (chat) or Anthropic's (messages) error shape.
func wantOrgBudget402(t *testing.T, what string, status int, errHeader, body string, anthropic bool) {
	t.Helper()
	if status != 402 || errHeader != "billing.budget_exceeded" {
		t.Fatalf("%s: %d %q %s", what, status, errHeader, body)
	}
	var shape struct {
		Type  string `json:"type"`
		Error struct {
			Type    string  `json:"type"`
			Code    *string `json:"code"`
			Message string  `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &shape); err != nil {
		t.Fatalf("%s: body is not JSON: %s", what, body)
	}
	if !strings.Contains(shape.Error.Message, "org day budget") {
		t.Errorf("%s: message does not name the org's day budget: %s", what, body)
	}
	if anthropic && (shape.Type != "error" || shape.Error.Type != "billing_error") {
		t.Errorf("%s: not Anthropic's error shape: %s", what, body)
	}
	if !anthropic && (shape.Error.Type != "insufficient_quota" || shape.Error.Code == nil || *shape.Error.Code != "insufficient_quota") {
		t.Errorf("%s: not OpenAI's error shape: %s", what, body)
	}
}

// TestOrgBudgets: a hard organisation day budget that the first request
// spends refuses the next request of any of the organisation's keys with 402
// in the caller's format (without reaching the upstream), leaves another
// organisation alone, and once switched to soft lets requests through with
// an alert in the log. On Postgres, a budget set through one replica is
// enforced by another within the settings cache's 5 s.
func TestOrgBudgets(t *testing.T) {
	t.Run("one replica", testOrgBudgetsOneReplica)
	t.Run("two replicas on postgres", testOrgBudgetsAcrossReplicas)
}

func testOrgBudgetsOneReplica(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	in := startHeddle(t, nil)
	a := signUp(t, in.URL, "budgets@example.com", "openai", fakeSecret, up.URL+"/v1")
	other := signUp(t, in.URL, "unaffected@example.com", "openai", fakeSecret, up.URL+"/v1")
	var second struct {
		Key struct {
			ID string `json:"id"`
		} `json:"key"`
		Secret string `json:"secret"`
	}
	a.api.do("POST", "/api/v1/keys", map[string]any{"name": "second", "scopes": []string{"inference"}}, 201, &second)
	// 10 micro-dollars a day for the whole organisation: one gpt-5-mini
	// answer (13 micros) spends it.
	a.api.do("PUT", "/api/v1/budgets", map[string]any{"daily_limit_micros": 10, "daily_mode": "hard"}, 200, nil)

	if resp, b := chat(t, in.URL, a.Key, chatBody(0)); resp.StatusCode != 200 {
		t.Fatalf("first request within the org budget: %d %s", resp.StatusCode, b)
	}
	// Spend is recorded after the answer; the next request of the other key
	// is refused once it is.
	var status int
	var header, body string
	before := 0
	for deadline, i := time.Now().Add(5*time.Second), 1; time.Now().Before(deadline); i++ {
		before = len(up.Requests())
		resp, b := chat(t, in.URL, second.Secret, chatBody(i))
		status, header, body = resp.StatusCode, resp.Header.Get("x-heddle-error"), b
		if status != 200 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	wantOrgBudget402(t, "second key, OpenAI chat", status, header, body, false)
	resp, b := send(t, in.URL, a.Key, "", messagesBody(0))
	wantOrgBudget402(t, "first key, Anthropic messages", resp.StatusCode, resp.Header.Get("x-heddle-error"), b, true)
	if n := len(up.Requests()); n != before {
		t.Errorf("%d refused requests reached the upstream", n-before)
	}

	if resp, b := chat(t, in.URL, other.Key, chatBody(100)); resp.StatusCode != 200 {
		t.Errorf("another organisation: %d %s", resp.StatusCode, b)
	}
	if resp, b := send(t, in.URL, other.Key, "", messagesBody(100)); resp.StatusCode != 200 {
		t.Errorf("another organisation, Anthropic messages: %d %s", resp.StatusCode, b)
	}

	var got orgBudgets
	a.api.do("GET", "/api/v1/budgets", nil, 200, &got)
	if got.Org.Daily.LimitMicros != 10 || got.Org.Daily.Mode != "hard" || got.Org.Daily.SpentMicros < 11 || len(got.Keys) != 2 {
		t.Errorf("budgets of the organisation: %+v", got)
	}
	var otherGot orgBudgets
	other.api.do("GET", "/api/v1/budgets", nil, 200, &otherGot)
	if otherGot.Org.Daily.LimitMicros != 0 || len(otherGot.Keys) != 1 || otherGot.Keys[0].ID != other.KeyID {
		t.Errorf("the other organisation sees: %+v", otherGot)
	}

	// Soft: requests pass again, with an alert in the log.
	a.api.do("PUT", "/api/v1/budgets", map[string]any{"daily_limit_micros": 10, "daily_mode": "soft"}, 200, nil)
	if resp, b := chat(t, in.URL, second.Secret, chatBody(200)); resp.StatusCode != 200 {
		t.Fatalf("soft org budget, chat: %d %s", resp.StatusCode, b)
	}
	if resp, b := send(t, in.URL, a.Key, "", messagesBody(200)); resp.StatusCode != 200 {
		t.Fatalf("soft org budget, messages: %d %s", resp.StatusCode, b)
	}
	if !in.logContains(`"msg":"soft budget exceeded"`) || !in.logContains(`"scope":"org:`+a.OrgID+`"`) {
		t.Errorf("no soft budget alert for %s in the log:\n%s", a.OrgID, in.logs.String())
	}
	for _, secret := range []string{a.Key, second.Secret, fakeSecret, "budget question", "budget message"} {
		if in.logContains(secret) {
			t.Errorf("the log contains %q", secret)
		}
	}
}

func testOrgBudgetsAcrossReplicas(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	pg := freshPostgres(t)
	r1 := startHeddle(t, map[string]string{"HEDDLE_DATABASE_URL": pg})
	r2 := startHeddle(t, map[string]string{"HEDDLE_DATABASE_URL": pg,
		"HEDDLE_MASTER_KEYSET_FILE":  r1.DataDir + "/master-keyset.json",
		"HEDDLE_SESSION_SECRET_FILE": r1.DataDir + "/session-secret"})
	a := signUp(t, r1.URL, "replicas@example.com", "openai", fakeSecret, up.URL+"/v1")

	// Replica 2 serves (and caches "no budget" for the organisation), then
	// a hard budget is set through replica 1.
	if resp, b := chat(t, r2.URL, a.Key, chatBody(0)); resp.StatusCode != 200 {
		t.Fatalf("first request on replica 2: %d %s", resp.StatusCode, b)
	}
	a.api.do("PUT", "/api/v1/budgets", map[string]any{"daily_limit_micros": 10, "daily_mode": "hard"}, 200, nil)
	set := time.Now()
	refused := func(in *instance, i int) (bool, time.Duration) {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); i++ {
			resp, b := chat(t, in.URL, a.Key, chatBody(i))
			if resp.StatusCode == 402 {
				wantOrgBudget402(t, in.URL, resp.StatusCode, resp.Header.Get("x-heddle-error"), b, false)
				return true, time.Since(set)
			}
			time.Sleep(200 * time.Millisecond)
		}
		return false, time.Since(set)
	}
	if ok, _ := refused(r1, 10); !ok {
		t.Fatal("replica 1 never enforced the budget it stored")
	}
	ok, took := refused(r2, 20)
	if !ok {
		t.Fatal("replica 2 never enforced the budget set through replica 1")
	}
	t.Logf("replica 2 enforced the new budget %v after it was set", took.Round(100*time.Millisecond))

	a.api.do("PUT", "/api/v1/budgets", map[string]any{"daily_limit_micros": 10, "daily_mode": "soft"}, 200, nil)
	passed := false
	for deadline, i := time.Now().Add(10*time.Second), 30; time.Now().Before(deadline) && !passed; i++ {
		resp, _ := chat(t, r2.URL, a.Key, chatBody(i))
		passed = resp.StatusCode == 200
		if !passed {
			time.Sleep(200 * time.Millisecond)
		}
	}
	if !passed {
		t.Fatal("replica 2 kept refusing after the budget turned soft")
	}
}
