package e2e

import (
	"database/sql"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch/dispatchtest"
)

// overdraftBound is the balance's documented floor (credits package doc):
// reservations cover the maximum cost of every call whose upstream reports
// usage within the prompt's bytes and the max tokens, as the fake does, so
// the balance never goes below zero.
const overdraftBound = 0

// TestHostedBillingReplicas: two replicas on one Postgres, 64 concurrent
// streams (chat and messages, alternating replicas) drain a small balance.
// The final balance is >= -overdraftBound, the ledger's sum equals the
// balance, nothing stays reserved, every served stream has exactly one
// debit and every refused one (402 billing.insufficient_credits) none.
func TestHostedBillingReplicas(t *testing.T) {
	up := dispatchtest.NewUpstream(t)
	steps := make([]dispatchtest.Step, 64)
	for i := range steps {
		steps[i] = dispatchtest.Step{Delay: 50 * time.Millisecond} // calls overlap
	}
	up.Script("gpt-5-mini", steps...)
	pg := freshPostgres(t)
	env := map[string]string{"HEDDLE_DATABASE_URL": pg, "HEDDLE_OPERATOR_EMAIL": "operator@example.com"}
	r1 := startHeddle(t, env)
	env2 := map[string]string{"HEDDLE_MASTER_KEYSET_FILE": r1.DataDir + "/master-keyset.json",
		"HEDDLE_SESSION_SECRET_FILE": r1.DataDir + "/session-secret"}
	for k, v := range env {
		env2[k] = v
	}
	r2 := startHeddle(t, env2)
	op, planID := operatorSetup(t, r1.URL, map[string]string{"HEDDLE_DATABASE_URL": pg, "HEDDLE_DATA_DIR": r1.DataDir}, up.URL+"/v1", 15000)
	tn := signUp(t, r2.URL, "drain@example.com", "", "", "")
	op.do("PUT", "/api/v1/operator/orgs/"+tn.OrgID+"/plan", map[string]any{"plan_id": planID}, 200, nil)
	// About ten streams' worth at once (a reservation is ~210 micros, a
	// stream costs ~20): most of the 64 find the balance held or spent.
	op.do("POST", "/api/v1/operator/orgs/"+tn.OrgID+"/credits", map[string]any{"kind": "grant", "amount_micros": 2000, "reason": "drain"}, 201, nil)

	type outcome struct {
		id     string
		status int
		code   string
	}
	results := make([]outcome, 64)
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			base := r1.URL
			if i%2 == 1 {
				base = r2.URL
			}
			c := wireCalls(i)[1+2*(i%2)] // chat stream, messages stream
			resp, _ := c.call(t, base, tn.Key)
			results[i] = outcome{resp.Header.Get("x-heddle-request-id"), resp.StatusCode, resp.Header.Get("x-heddle-error")}
		}()
	}
	wg.Wait()

	db, err := sql.Open("pgx", pg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var balance, reserved, sum int64
	var held int
	if err := db.QueryRow(`SELECT balance_micros, reserved_micros FROM credit_accounts WHERE org_id = $1`, tn.OrgID).Scan(&balance, &reserved); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT COALESCE(SUM(amount_micros), 0) FROM credit_ledger WHERE org_id = $1`, tn.OrgID).Scan(&sum); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM credit_reservations WHERE org_id = $1`, tn.OrgID).Scan(&held); err != nil {
		t.Fatal(err)
	}
	debits := map[string]int{}
	rows, err := db.Query(`SELECT request_id FROM credit_ledger WHERE org_id = $1 AND kind = 'debit'`, tn.OrgID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		debits[id]++
	}
	rows.Close()

	served, refused := 0, 0
	for i, r := range results {
		switch {
		case r.status == 200:
			served++
			if debits[r.id] != 1 {
				t.Errorf("stream %d (%s) served with %d debits", i, r.id, debits[r.id])
			}
		case r.status == 402 && r.code == "billing.insufficient_credits":
			refused++
			if debits[r.id] != 0 {
				t.Errorf("refused stream %d debited", i)
			}
		default:
			t.Errorf("stream %d: %d %s", i, r.status, r.code)
		}
	}
	if balance < -overdraftBound || sum != balance || reserved != 0 || held != 0 || len(debits) != served {
		t.Errorf("balance %d (bound -%d), ledger sum %d, reserved %d in %d holds, %d debits for %d served",
			balance, overdraftBound, sum, reserved, held, len(debits), served)
	}
	if served == 0 || refused == 0 {
		t.Errorf("served %d refused %d: the balance should serve some and refuse others", served, refused)
	}
	t.Logf("64 streams over 2 replicas: %d served, %d refused 402; final balance %d micros, ledger sum %d", served, refused, balance, sum)
}
