package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// planView is what the operator API answers for a plan.
type planView struct {
	ID                    string `json:"id"`
	BYOKFeeBP             int64  `json:"byok_fee_bp"`
	DefaultRPM            int    `json:"default_rpm"`
	DefaultTPM            int    `json:"default_tpm"`
	DefaultMaxConcurrency int    `json:"default_max_concurrency"`
}

// roomInMinute waits until at least 20 s of the current UTC minute are left,
// so a sequence counted against one fixed rate-limit window stays in it.
func roomInMinute(t *testing.T) {
	t.Helper()
	testwait.Until(t, 45*time.Second, "20 s left in the minute", func() bool { return time.Now().UTC().Second() < 40 })
}

// TestPlanDefaultsAndBYOKFee: an organisation on a plan gets the plan's
// default RPM where its key sets none (a key's own RPM wins); a change of
// plan, or of the plan's defaults, applies from the next request. Each
// request its own (BYOK) credential served on a plan with a fee has one
// debit of cost x bp / 10000 (rounded up); on a plan without a fee nothing
// is debited.
func TestPlanDefaultsAndBYOKFee(t *testing.T) {
	const feeBP = 7500 // 75%: a fee of a ~13-micro request is not merely the 1 micro any fee rounds up to
	up := dispatchtest.NewUpstream(t)
	in := startHeddle(t, map[string]string{"HEDDLE_OPERATOR_EMAIL": "operator@example.com"})
	op, _ := operatorSetup(t, in.URL, map[string]string{"HEDDLE_DATA_DIR": in.DataDir}, up.URL+"/v1", 10000)
	tn := signUp(t, in.URL, "byok-fee@example.com", "openai", fakeSecret, up.URL+"/v1")
	var free, paid planView
	op.do("POST", "/api/v1/operator/plans", map[string]any{"name": "byok-free", "multiplier_bp": 10000}, 201, &free)
	paidPlan := map[string]any{"name": "byok-fee", "multiplier_bp": 10000, "byok_fee_bp": feeBP, "default_rpm": 3, "default_max_concurrency": 50}
	op.do("POST", "/api/v1/operator/plans", paidPlan, 201, &paid)
	if paid.DefaultRPM != 3 || paid.DefaultMaxConcurrency != 50 || paid.DefaultTPM != 0 || paid.BYOKFeeBP != feeBP {
		t.Fatalf("plan as saved: %+v", paid)
	}
	var listed struct {
		Plans []planView `json:"plans"`
	}
	op.do("GET", "/api/v1/operator/plans", nil, 200, &listed)
	found := false
	for _, p := range listed.Plans {
		found = found || p == paid
	}
	if !found {
		t.Errorf("plans listed %+v, want %+v among them", listed.Plans, paid)
	}
	setPlan := func(id string) {
		op.do("PUT", "/api/v1/operator/orgs/"+tn.OrgID+"/plan", map[string]any{"plan_id": id}, 200, nil)
	}
	call := func(key string, i int) (int, string, string) {
		resp, b := chat(t, in.URL, key, chatBody(100+i))
		if resp.StatusCode != 200 && resp.StatusCode != 429 {
			t.Fatalf("request %d: %d %s", i, resp.StatusCode, b)
		}
		return resp.StatusCode, resp.Header.Get("x-heddle-error"), resp.Header.Get("x-heddle-request-id")
	}
	var noFee, withFee []string
	served := func(key string, i int, fee bool) {
		t.Helper()
		st, code, id := call(key, i)
		if st != 200 {
			t.Fatalf("request %d: %d %s, want 200", i, st, code)
		}
		if fee {
			withFee = append(withFee, id)
		} else {
			noFee = append(noFee, id)
		}
	}
	limited := func(key string, i int, why string) {
		t.Helper()
		before := len(up.Requests())
		if st, code, _ := call(key, i); st != 429 || code != "tenancy.rate_limited" {
			t.Fatalf("%s: %d %s, want 429 tenancy.rate_limited", why, st, code)
		}
		if len(up.Requests()) != before {
			t.Fatalf("%s: the refused request reached the upstream", why)
		}
	}

	roomInMinute(t)
	// A plan without a fee or defaults: no limit, no debit.
	setPlan(free.ID)
	for i := range 4 {
		served(tn.Key, i, false)
	}
	// The plan with a fee and a default of 3 a minute, from the next request.
	setPlan(paid.ID)
	for i := 4; i < 7; i++ {
		served(tn.Key, i, true)
	}
	limited(tn.Key, 7, "a fourth request under the plan's default of 3 a minute")
	// The plan's defaults changed: from the next request.
	paidPlan["default_rpm"] = 10
	op.do("PUT", "/api/v1/operator/plans/"+paid.ID, paidPlan, 200, nil)
	served(tn.Key, 8, true)
	// A key's own RPM wins over the plan's default.
	var own struct {
		Secret string `json:"secret"`
	}
	tn.api.do("POST", "/api/v1/keys", map[string]any{"name": "own-rpm", "scopes": []string{"inference"}, "rpm": 1}, 201, &own)
	served(own.Secret, 9, true)
	limited(own.Secret, 10, "a second request of a key whose own RPM is 1 (the plan's default is 10)")
	// Back on the plan without a fee: the next request is not debited.
	setPlan(free.ID)
	served(tn.Key, 11, false)

	ledger := wholeLedger(t, tn)
	debits := map[string][]int64{}
	for _, e := range ledger {
		if e.Kind == "debit" {
			debits[e.RequestID] = append(debits[e.RequestID], e.AmountMicros)
		}
	}
	rows, _, _ := orgRequests(t, in, tn.OrgID)
	costs := map[string]int64{}
	for _, r := range rows {
		costs[r.id] = r.cost
	}
	for _, id := range withFee {
		want := -priced(costs[id], feeBP)
		if costs[id] <= 0 || len(debits[id]) != 1 || debits[id][0] != want {
			t.Errorf("%s on the plan with a fee: cost %d, debits %v, want one debit of %d", id, costs[id], debits[id], want)
		}
	}
	for _, id := range noFee {
		if len(debits[id]) != 0 {
			t.Errorf("%s on the plan without a fee was debited %v", id, debits[id])
		}
	}
	if len(debits) != len(withFee) {
		t.Errorf("%d requests debited, want the %d served on the plan with a fee", len(debits), len(withFee))
	}
	t.Logf("fee debits %v for %d requests at %d bp; %d requests on the plan without a fee, none debited", debits, len(withFee), feeBP, len(noFee))
}

// TestPlanDefaultConcurrency: an organisation whose own max_concurrency is
// unset gets its plan's default cap (a second request while one stream is
// in flight waits HEDDLE_CAP_WAIT and gets 503 dispatch.overloaded); its own
// setting, once made, wins from the next request.
func TestPlanDefaultConcurrency(t *testing.T) {
	up := newPacedUpstream(t, 80, 100*time.Millisecond) // about 8 s a stream
	in := startHeddle(t, map[string]string{"HEDDLE_OPERATOR_EMAIL": "operator@example.com", "HEDDLE_CAP_WAIT": "300ms"})
	op, _ := operatorSetup(t, in.URL, map[string]string{"HEDDLE_DATA_DIR": in.DataDir}, up.URL+"/v1", 10000)
	tn := signUp(t, in.URL, "plan-cap@example.com", "openai", fakeSecret, up.URL+"/v1")
	var p planView
	op.do("POST", "/api/v1/operator/plans", map[string]any{"name": "one-at-a-time", "multiplier_bp": 10000, "default_max_concurrency": 1}, 201, &p)
	op.do("PUT", "/api/v1/operator/orgs/"+tn.OrgID+"/plan", map[string]any{"plan_id": p.ID}, 200, nil)

	hc := newHTTPClient()
	started, ended := make(chan struct{}, 1), make(chan error, 1)
	go func() {
		req, _ := http.NewRequest("POST", in.URL+"/v1/chat/completions",
			strings.NewReader(`{"model":"gpt-5-mini","stream":true,"messages":[{"role":"user","content":"hold"}]}`))
		req.Header.Set("Authorization", "Bearer "+tn.Key)
		req.Header.Set("Cache-Control", "no-cache")
		resp, err := hc.Do(req)
		if err != nil {
			ended <- err
			return
		}
		defer resp.Body.Close()
		if _, err := bufio.NewReader(resp.Body).Peek(1); err != nil || resp.StatusCode != 200 {
			ended <- fmt.Errorf("hold stream: %d %v", resp.StatusCode, err)
			return
		}
		started <- struct{}{}
		_, err = io.Copy(io.Discard, resp.Body)
		ended <- err
	}()
	select {
	case <-started:
	case err := <-ended:
		t.Fatal(err)
	}
	resp, b := chat(t, in.URL, tn.Key, chatBody(1))
	if resp.StatusCode != 503 || resp.Header.Get("x-heddle-error") != "dispatch.overloaded" {
		t.Fatalf("a second request under the plan's default cap of 1: %d %q %s", resp.StatusCode, resp.Header.Get("x-heddle-error"), b)
	}
	tn.api.do("PUT", "/api/v1/budgets", map[string]any{"max_concurrency": 2}, 200, nil)
	if resp, b := chat(t, in.URL, tn.Key, chatBody(2)); resp.StatusCode != 200 {
		t.Fatalf("with the organisation's own cap of 2 (the plan's default is 1): %d %q %s", resp.StatusCode, resp.Header.Get("x-heddle-error"), b)
	}
	if err := <-ended; err != nil {
		t.Fatal(err)
	}
}
