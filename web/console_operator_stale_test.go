package web_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/credits"
	creditsql "github.com/heddle-gw/heddle/credits/sqlstore"
)

// staleDebit makes a stale-hold debit of micros on org (named name in the
// ledger's database): a hold the janitor, an hour and more later, charges
// its whole reservation.
func (f *consoleFixture) staleDebit(org, name, requestID string, micros int64) {
	f.t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	if err := f.creditsDB.Exec("INSERT INTO orgs (id, name, slug, created_at, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
		org, name, org, now, now).Error; err != nil {
		f.t.Fatal(err)
	}
	if _, _, err := f.credits.Credit(ctx, credits.CreditInput{OrgID: org, Kind: credits.KindGrant, AmountMicros: micros, Actor: "op", Reference: "g-" + requestID}); err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.credits.Reserve(ctx, org, requestID, micros); err != nil {
		f.t.Fatal(err)
	}
	later := credits.NewService(creditsql.New(f.creditsDB), credits.Config{Now: func() time.Time { return now.Add(credits.StaleAfter + time.Minute) }})
	if n, _, err := later.SettleStale(ctx); err != nil || n != 1 {
		f.t.Fatalf("stale settlement: %d %v", n, err)
	}
}

// TestOperatorStaleDebits: the operator page and the operator API list
// every organisation's stale-hold debits with the organisation, amount,
// time and request, and the refund action; a refund (partial, then
// repeated, then above the debit) is recorded once and shown in place of
// the form. Non-operators get neither.
func TestOperatorStaleDebits(t *testing.T) {
	f := newConsoleFixture(t)
	ctx := context.Background()
	tenantV := f.visitor()
	org := tenantV.signup("tenant@example.com")
	f.staleDebit(org, "Tenant Ltd", "req-stale-1", 2_500_000)
	f.staleDebit("org_other", "Other Co", "req-stale-2", 40_000)
	if p := tenantV.get("/operator", nil); p.status != 403 {
		t.Fatalf("a non-operator got /operator: %d", p.status)
	}
	if st, _ := tenantV.json("GET", "/api/v1/operator/stale-debits", ""); st != 403 {
		t.Fatalf("a non-operator listed stale debits: %d", st)
	}

	op := f.visitor()
	op.signup("root@example.com")
	root, err := f.accounts.UserByEmail(ctx, "root@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.credits.AddOperator(ctx, root.ID, "test"); err != nil {
		t.Fatal(err)
	}
	st, body := op.json("GET", "/api/v1/operator/stale-debits", "")
	list, _ := body["stale_debits"].([]any)
	if st != 200 || len(list) != 2 {
		t.Fatalf("stale debits: %d %v", st, body)
	}
	newest, oldest := list[0].(map[string]any), list[1].(map[string]any)
	debit := oldest["debit"].(map[string]any)
	action, _ := oldest["refund_action"].(map[string]any)
	id, _ := debit["id"].(string)
	if newest["org_name"] != "Other Co" || oldest["org_id"] != org || oldest["org_name"] != "Tenant Ltd" || debit["amount_micros"] != -2_500_000.0 ||
		debit["request_id"] != "req-stale-1" || debit["reason"] != credits.StaleReason || oldest["refund"] != nil || action == nil ||
		action["path"] != "/api/v1/operator/stale-debits/"+id+"/refund" || action["method"] != "POST" || action["amount_micros"] != 2_500_000.0 {
		t.Fatalf("stale debits: %v", body)
	}

	page := op.get("/operator", nil)
	row := page.tid("operator-stale-" + id)
	if page.status != 200 || row.Length() != 1 || !strings.Contains(row.Text(), "Tenant Ltd") || !strings.Contains(row.Text(), "req-stale-1") ||
		row.Find(`[data-testid="operator-stale-amount"]`).Text() != "$2.50" ||
		row.Find(`[data-testid="operator-stale-amount-`+id+`"]`).AttrOr("value", "") != "2.500000" {
		t.Fatalf("operator page's stale debits: %d %s", page.status, page.tid("operator-stale").Text())
	}
	refund := url.Values{"amount": {"2"}, "reason": {"the call never ran"}}
	done := op.post("/operator/stale/"+id+"/refund", refund, htmx)
	if done.status != 200 || done.text("operator-notice") != "Refunded $2.00." ||
		!strings.Contains(done.tid("operator-stale-"+id).Find(`[data-testid="operator-stale-refunded"]`).Text(), "$2.00") ||
		done.tid("operator-stale-refund-"+id).Length() != 0 {
		t.Fatalf("refund: %d %s", done.status, done.body)
	}
	if again := op.post("/operator/stale/"+id+"/refund", refund, htmx); again.status != 200 || !strings.Contains(again.text("operator-notice"), "already refunded") {
		t.Errorf("repeated refund: %d %s", again.status, again.text("operator-notice"))
	}
	if a, _ := f.credits.Account(ctx, org); a.BalanceMicros != 2_000_000 {
		t.Errorf("balance after the refund %d, want 2000000 (granted 2.5, debited 2.5, refunded 2)", a.BalanceMicros)
	}
	otherID := newest["debit"].(map[string]any)["id"].(string)
	if p := op.post("/operator/stale/"+otherID+"/refund", url.Values{"amount": {"1"}}, htmx); p.status != 422 || p.text("operator-error") == "" {
		t.Errorf("refund above the debit: %d %s", p.status, p.text("operator-error"))
	}
	if st, m := op.json("POST", "/api/v1/operator/stale-debits/"+otherID+"/refund", ""); st != 201 || m["amount_micros"] != 40_000.0 || m["request_id"] != "req-stale-2" {
		t.Errorf("API refund of the whole debit: %d %v", st, m)
	}
	if st, _ := op.json("POST", "/api/v1/operator/stale-debits/nope/refund", ""); st != 404 {
		t.Errorf("refund of an unknown debit: %d", st)
	}
	_, body = op.json("GET", "/api/v1/operator/stale-debits?limit=1", "")
	if l, _ := body["stale_debits"].([]any); len(l) != 1 || body["next"] != otherID || l[0].(map[string]any)["refund"] == nil {
		t.Errorf("first page of one: %v", body)
	}
}
