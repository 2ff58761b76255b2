package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/routingtest"
)

// ledgerCredits is fakeCredits that keeps, as the ledger does
// (credit_ledger_debit_key), one debit per organisation and request id: a
// later settlement or fee of the same request adds nothing.
type ledgerCredits struct {
	fakeCredits
	debits map[string]int64 // by org and request id
}

func (l *ledgerCredits) debit(org, req string, micros int64) {
	if _, ok := l.debits[org+"|"+req]; !ok && micros > 0 {
		l.debits[org+"|"+req] = micros
	}
}

func (l *ledgerCredits) Settle(ctx context.Context, r *credits.Reservation, u credits.Use) error {
	l.debit(r.OrgID, r.RequestID, u.Micros)
	return l.fakeCredits.Settle(ctx, r, u)
}

func (l *ledgerCredits) ChargeFee(ctx context.Context, org, req string, u credits.Use) error {
	l.debit(org, req, u.Micros)
	return l.fakeCredits.ChargeFee(ctx, org, req, u)
}

// TestHandoverSummaryFeeKeepsTheTurnsDebit: the ledger takes one debit per
// (organisation, request id), so the handover summary's BYOK fee must not
// take the turn's request id: with it, the turn's own fee (or settlement)
// was silently dropped as a duplicate.
func TestHandoverSummaryFeeKeepsTheTurnsDebit(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	pins := routingtest.NewPinStore(nil)
	key := routing.PinKey{OrgID: "org", KeyID: "key", Session: "s1", Role: "main"}
	if err := pins.Put(ctx, key, routing.Pin{Model: "gemini-2.5-flash", Turns: 12, LastInputTokens: 20000, Created: now, Updated: now}, 0); err != nil {
		t.Fatal(err)
	}
	byok := map[string]bool{"openai": true, "anthropic": true}
	plan := &credits.Plan{ID: "p", Providers: []string{"openai"}, MultiplierBP: 10000, BYOKFeeBP: 5000}
	ex := &summaryExec{platformExec: platformExec{byok: byok}}
	lc := &ledgerCredits{fakeCredits: fakeCredits{funding: Funding{Plan: plan, BYOK: byok}, balance: 1 << 40}, debits: map[string]int64{}}
	s := testService(t, Config{}, Deps{Executor: ex, Routers: StaticRouters{Router: preferRouter{"claude-haiku-4-5"}}},
		WithPins(pins, routing.HandoverConfig{}), WithCredits(lc),
		WithProviders(fixedProviders{"openai": true, "anthropic": true}))
	var msgs []map[string]string
	for i := range 16 {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs = append(msgs, map[string]string{"role": role, "content": fmt.Sprintf("step %d: ", i) + strings.Repeat("refactor parse.go once more ", 400)})
	}
	body, err := json.Marshal(map[string]any{"model": "auto", "messages": msgs})
	if err != nil {
		t.Fatal(err)
	}
	turn := &Turn{RequestID: "req_1", Received: now, Format: llm.FormatChat, Header: http.Header{routing.HeaderHeddleSession: {"s1"}}, Body: body,
		Caller: Caller{OrgID: "org", KeyID: "key", Scopes: []string{"inference"}}}
	out := &captureOutput{}
	if err := s.Serve(ctx, turn, out); err != nil {
		t.Fatal(err)
	}
	if len(ex.summaries) != 1 || out.served.Model != "claude-haiku-4-5" {
		t.Fatalf("served %s with %d summaries, want claude-haiku-4-5 after one summary", out.served.Model, len(ex.summaries))
	}
	pricer := Pricer{Catalog: s.d.Catalog}
	sumFee := plan.Fee(pricer.CostMicros(ex.summaries[0], llm.Usage{Input: 200_000, Output: 2_000}))
	var debits []int64
	for _, micros := range lc.debits {
		debits = append(debits, micros)
	}
	if len(debits) != 2 || (debits[0] != sumFee && debits[1] != sumFee) || sumFee <= 0 {
		t.Fatalf("fee debits %v, want two: the summary's %d and the turn's", debits, sumFee)
	}
}
