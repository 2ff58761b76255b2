package e2e

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
	"github.com/heddle-gw/heddle/internal/testwait"
)

// TestHostedBilling: an operator creates a plan (1.5x) and a platform
// credential pointing at the fake upstream, gives an organisation the plan
// and credit; the organisation's key (no BYOK credential) calls gpt-5-mini
// in the four wire formats, whole and streamed, on the platform
// credential; the ledger holds one debit per request equal to its recorded
// cost at the plan's prices; once the balance cannot cover a request's
// maximum cost every format gets 402 billing.insufficient_credits and
// nothing reaches the upstream; a BYOK credential added later takes
// precedence. A non-operator is refused the operator API, and another
// organisation reads none of this one's ledger, plan or statements.
func TestHostedBilling(t *testing.T) {
	const multiplier = 15000
	up := dispatchtest.NewUpstream(t)
	hook := newAlertHook(t)
	in := startHeddle(t, map[string]string{"HEDDLE_OPERATOR_EMAIL": "operator@example.com",
		"HEDDLE_LOW_BALANCE_MICROS": "1000", "HEDDLE_LOW_BALANCE_WEBHOOK": hook.url, "HEDDLE_LOW_BALANCE_WEBHOOK_SECRET": hookSecret})
	op, planID := operatorSetup(t, in.URL, map[string]string{"HEDDLE_DATA_DIR": in.DataDir}, up.URL+"/v1", multiplier)
	tn := signUp(t, in.URL, "tenant@example.com", "", "", "")
	other := signUp(t, in.URL, "other@example.com", "", "", "")

	tn.api.do("GET", "/api/v1/operator/orgs", nil, 403, nil)
	tn.api.do("POST", "/api/v1/operator/orgs/"+tn.OrgID+"/credits", map[string]any{"kind": "grant", "amount_micros": 1_000_000}, 403, nil)

	// Without a plan the platform credential serves nobody.
	if resp, b := wireCalls(-1)[0].call(t, in.URL, tn.Key); resp.StatusCode == 200 {
		t.Fatalf("an organisation without a plan was served on the platform credential: %s", b)
	}
	op.do("PUT", "/api/v1/operator/orgs/"+tn.OrgID+"/plan", map[string]any{"plan_id": planID}, 200, nil)
	op.do("POST", "/api/v1/operator/orgs/"+tn.OrgID+"/credits", map[string]any{"kind": "grant", "amount_micros": 1000, "reason": "trial"}, 201, nil)
	// A top-up is idempotent by its reference.
	op.do("POST", "/api/v1/operator/orgs/"+tn.OrgID+"/topups", map[string]any{"amount_micros": 500, "reference": "invoice-1"}, 201, nil)
	op.do("POST", "/api/v1/operator/orgs/"+tn.OrgID+"/topups", map[string]any{"amount_micros": 500, "reference": "invoice-1"}, 200, nil)

	served := map[string]string{} // request id -> call name
	for _, c := range wireCalls(0) {
		resp, b := c.call(t, in.URL, tn.Key)
		if resp.StatusCode != 200 || resp.Header.Get("x-heddle-provider") != "openai" {
			t.Fatalf("%s on the platform credential: %d %s %s", c.name, resp.StatusCode, resp.Header.Get("x-heddle-error"), b)
		}
		served[resp.Header.Get("x-heddle-request-id")] = c.name
	}
	for _, r := range up.Requests() {
		if got := r.Header.Get("Authorization"); got != "Bearer "+platformSecret {
			t.Fatalf("upstream saw %q, want the platform credential", got)
		}
	}

	// Drain the balance: stop at the first refusal.
	refusedAt := -1
	for i := 1; i < 200 && refusedAt < 0; i++ {
		c := wireCalls(i)[i%8]
		before := len(up.Requests())
		resp, b := c.call(t, in.URL, tn.Key)
		switch {
		case resp.StatusCode == 200:
			served[resp.Header.Get("x-heddle-request-id")] = c.name
		case resp.StatusCode == 402 && resp.Header.Get("x-heddle-error") == "billing.insufficient_credits":
			if n := len(up.Requests()); n != before {
				t.Fatalf("a refused request reached the upstream (%d calls)", n-before)
			}
			refusedAt = i
		default:
			t.Fatalf("%s: %d %s %s", c.name, resp.StatusCode, resp.Header.Get("x-heddle-error"), b)
		}
	}
	if refusedAt < 0 {
		t.Fatal("the balance never ran out")
	}
	before := len(up.Requests())
	for _, c := range wireCalls(1000) {
		resp, b := c.call(t, in.URL, tn.Key)
		if resp.StatusCode != 402 || resp.Header.Get("x-heddle-error") != "billing.insufficient_credits" {
			t.Errorf("%s with too little credit: %d %q %s", c.name, resp.StatusCode, resp.Header.Get("x-heddle-error"), b)
		}
		if !strings.Contains(b, "prepaid credit") {
			t.Errorf("%s: the error body does not say why: %s", c.name, b)
		}
	}
	if n := len(up.Requests()); n != before {
		t.Errorf("%d refused requests reached the upstream", n-before)
	}

	var st billingState
	tn.api.do("GET", "/api/v1/billing", nil, 200, &st)
	ledger := wholeLedger(t, tn)
	var sum int64
	debits := map[string][]int64{}
	for _, e := range ledger {
		sum += e.AmountMicros
		if e.Kind == "debit" {
			debits[e.RequestID] = append(debits[e.RequestID], e.AmountMicros)
		}
	}
	if st.BalanceMicros < 0 || st.ReservedMicros != 0 || len(st.Reservations) != 0 || sum != st.BalanceMicros {
		t.Errorf("billing %+v, ledger sum %d: want balance >= 0, nothing reserved, sum == balance", st, sum)
	}
	var debited int64
	for _, e := range ledger {
		if e.Kind == "debit" {
			debited -= e.AmountMicros
		}
	}
	if len(st.Usage) != 1 || st.Usage[0].Model != "gpt-5-mini" || st.Usage[0].KeyID != tn.KeyID || st.Usage[0].Requests != len(served) || st.Usage[0].Micros != debited {
		t.Errorf("usage by model and key %+v, want gpt-5-mini / %s: %d requests, %d micros", st.Usage, tn.KeyID, len(served), debited)
	}
	if st.Plan == nil || st.Plan.MultiplierBP != multiplier || len(st.Prices) == 0 {
		t.Errorf("the tenant's plan and prices: %+v", st)
	}
	if len(ledger) != len(served)+2 {
		t.Errorf("%d ledger entries for %d served requests, a grant and a top-up", len(ledger), len(served))
	}

	// Isolation: the other organisation sees none of it.
	var otherSt billingState
	other.api.do("GET", "/api/v1/billing", nil, 200, &otherSt)
	if otherSt.Plan != nil || otherSt.BalanceMicros != 0 || len(wholeLedger(t, other)) != 0 {
		t.Errorf("another organisation sees %+v", otherSt)
	}
	month := time.Now().UTC().Format("2006-01")
	var otherStmt struct {
		OrgID string `json:"org_id"`
		Lines []any  `json:"lines"`
	}
	other.api.do("GET", "/api/v1/billing/statements/"+month, nil, 200, &otherStmt)
	if otherStmt.OrgID != other.OrgID || len(otherStmt.Lines) != 0 {
		t.Errorf("another organisation's statement: %+v", otherStmt)
	}
	other.api.do("GET", "/api/v1/operator/orgs/"+tn.OrgID+"/ledger", nil, 403, nil)
	other.api.do("PUT", "/api/v1/orgs/current", map[string]any{"org_id": tn.OrgID}, 404, nil)

	var stmt struct {
		OrgID         string `json:"org_id"`
		OpeningMicros int64  `json:"opening_balance_micros"`
		ClosingMicros int64  `json:"closing_balance_micros"`
		Totals        map[string]int64
		Lines         []struct {
			Kind     string `json:"kind"`
			Requests int    `json:"requests"`
		} `json:"lines"`
	}
	tn.api.do("GET", "/api/v1/billing/statements/"+month, nil, 200, &stmt)
	if stmt.ClosingMicros != st.BalanceMicros || stmt.OpeningMicros != 0 {
		t.Errorf("statement opening %d closing %d, want 0 and the balance %d", stmt.OpeningMicros, stmt.ClosingMicros, st.BalanceMicros)
	}
	if dir := os.Getenv("HEDDLE_E2E_STATEMENT_DIR"); dir != "" {
		saveStatement(t, tn, month, dir)
	}

	// The balance fell below $0.001 once: one signed alert, one log line.
	testwait.Until(t, 10*time.Second, "the low-balance webhook", func() bool { return len(hook.got()) > 0 })
	if alerts := hook.got(); len(alerts) != 1 || alerts[0].OrgID != tn.OrgID || alerts[0].Type != "low_balance" || alerts[0].BalanceMicros >= 1000 {
		t.Errorf("low-balance alerts %+v, want one for %s", alerts, tn.OrgID)
	}
	if !in.logContains(`"msg":"low credit balance"`) {
		t.Error("no low-balance log line")
	}

	// BYOK wins: with its own credential the organisation is served with
	// no credit left, on its own secret, and nothing is debited.
	tn.api.do("POST", "/api/v1/credentials", map[string]any{"provider": "openai", "label": "own", "secret": byokSecret, "base_url": up.URL + "/v1"}, 201, nil)
	var byokResp string
	testwait.Until(t, 10*time.Second, "a request served on the BYOK credential", func() bool {
		resp, _ := wireCalls(2000)[0].call(t, in.URL, tn.Key)
		byokResp = resp.Header.Get("x-heddle-request-id")
		return resp.StatusCode == 200
	})
	reqs := up.Requests()
	if got := reqs[len(reqs)-1].Header.Get("Authorization"); got != "Bearer "+byokSecret {
		t.Errorf("after a BYOK credential was added the upstream saw %q", got)
	}
	if after := wholeLedger(t, tn); len(after) != len(ledger) {
		t.Errorf("a BYOK request changed the ledger: %d entries, were %d", len(after), len(ledger))
	}

	// One debit per served request, equal to its recorded cost at 1.5x.
	rows, _, _ := orgRequests(t, in, tn.OrgID)
	costs := map[string]int64{}
	for _, r := range rows {
		costs[r.id] = r.cost
	}
	for id, name := range served {
		if len(debits[id]) != 1 || costs[id] <= 0 || debits[id][0] != -priced(costs[id], multiplier) {
			t.Errorf("%s (%s): debits %v, recorded cost %d, want one debit of %d", name, id, debits[id], costs[id], -priced(costs[id], multiplier))
		}
	}
	if len(debits) != len(served) || debits[byokResp] != nil {
		t.Errorf("%d requests debited, %d served on the platform credential", len(debits), len(served))
	}
	for _, secret := range []string{platformSecret, byokSecret, tn.Key} {
		if in.logContains(secret) {
			t.Errorf("the log contains %q", secret)
		}
	}
	t.Logf("%d requests served on the platform credential, refused at call %d, final balance %d micros", len(served), refusedAt, st.BalanceMicros)
}
