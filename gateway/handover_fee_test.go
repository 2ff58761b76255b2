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
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/routingtest"
)

// summaryExec is platformExec whose handover summaries report a large
// usage, so their cost (and fee) is not rounded away; it notes the
// summaries it served.
type summaryExec struct {
	platformExec
	summaries []dispatch.Target
}

func (e *summaryExec) Run(ctx context.Context, m dispatch.Meta, plan dispatch.Plan, op *dispatch.Operation, out dispatch.StreamWriter) (*dispatch.Result, error) {
	res, err := e.platformExec.Run(ctx, m, plan, op, out)
	if err == nil && op.Purpose == dispatch.PurposeHandover {
		res.Usage = llm.Usage{Input: 200_000, Output: 2_000}
		e.summaries = append(e.summaries, res.Served)
	}
	return res, err
}

// handoverPlan is the BYOK-fee plan of the handover tests.
var handoverPlan = &credits.Plan{ID: "p", Providers: []string{"openai"}, MultiplierBP: 10000, BYOKFeeBP: 5000}

// handoverFunding is the organisation's funding in the handover tests: the
// plan, with its own openai and anthropic credentials.
var handoverFunding = Funding{Plan: handoverPlan, BYOK: map[string]bool{"openai": true, "anthropic": true}}

// serveHandoverTurn serves one routed turn of 16 long messages on session s1,
// pinned to a model the organisation can no longer reach (a sure switch, so
// a handover summary), with c as the credits stage, rec as the recorder (nil:
// none) and opts; it fails t unless the turn went to claude-haiku-4-5 after
// exactly one summary, and returns the service and its executor.
func serveHandoverTurn(t *testing.T, c Credits, rec Recorder, opts ...Option) (*Service, *summaryExec) {
	t.Helper()
	return serveHandoverTurnOn(t, handoverFunding.BYOK, c, rec, opts...)
}

// serveHandoverTurnOn is serveHandoverTurn with the organisation's own
// credentials on the providers in byok.
func serveHandoverTurnOn(t *testing.T, byok map[string]bool, c Credits, rec Recorder, opts ...Option) (*Service, *summaryExec) {
	t.Helper()
	ctx := context.Background()
	now := time.Now()
	pins := routingtest.NewPinStore(nil)
	key := routing.PinKey{OrgID: "org", KeyID: "key", Session: "s1", Role: "main"}
	if err := pins.Put(ctx, key, routing.Pin{Model: "gemini-2.5-flash", Turns: 12, LastInputTokens: 20000, Created: now, Updated: now}, 0); err != nil {
		t.Fatal(err)
	}
	ex := &summaryExec{platformExec: platformExec{byok: byok}}
	opts = append([]Option{WithPins(pins, routing.HandoverConfig{}), WithCredits(c), WithProviders(fixedProviders{"openai": true, "anthropic": true})}, opts...)
	s := testService(t, Config{}, Deps{Executor: ex, Recorder: rec, Routers: StaticRouters{Router: preferRouter{"claude-haiku-4-5"}}}, opts...)
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
	if out.served.Model != "claude-haiku-4-5" || len(ex.summaries) != 1 {
		t.Fatalf("served %s with %d summaries, want claude-haiku-4-5 after one handover summary", out.served.Model, len(ex.summaries))
	}
	return s, ex
}

// TestHandoverSummaryPaysTheBYOKFee: a routed turn that switches models on
// a long session summarises the history on the organisation's own
// credential; on a plan with a BYOK fee the credits stage charges the fee
// on the summary call as on the turn itself (two fee debits, the first
// the plan's fee on the summary's cost).
func TestHandoverSummaryPaysTheBYOKFee(t *testing.T) {
	fc := &fakeCredits{funding: handoverFunding, balance: 1 << 40}
	s, ex := serveHandoverTurn(t, fc, nil)
	sum := ex.summaries[0]
	wantFee := handoverPlan.Fee(Pricer{Catalog: s.d.Catalog}.CostMicros(sum, llm.Usage{Input: 200_000, Output: 2_000}))
	if len(fc.fees) != 2 || fc.fees[0] != wantFee || wantFee <= 0 {
		t.Fatalf("fees %v, want %d on the summary by %s/%s, then the turn's fee", fc.fees, wantFee, sum.Provider, sum.Model)
	}
	if len(fc.reserved) != 0 {
		t.Errorf("reserved %v on BYOK credentials", fc.reserved)
	}
}

// TestHandoverSummaryCostIsTheTurns: the handover summary a turn paid for
// upstream is part of what the turn cost: the request record's cost (and
// its savings against the baseline) and the budget settlement include it,
// while the BYOK fees stay one on the summary and one on the turn alone.
func TestHandoverSummaryCostIsTheTurns(t *testing.T) {
	fc := &fakeCredits{funding: handoverFunding, balance: 1 << 40}
	rows, guard := &requestRows{}, &guardCalls{}
	s, ex := serveHandoverTurn(t, fc, rows, WithGuard(guard))
	pricer := Pricer{Catalog: s.d.Catalog}
	sumCost := pricer.CostMicros(ex.summaries[0], llm.Usage{Input: 200_000, Output: 2_000})
	if len(rows.rows) != 1 || len(guard.settled) != 1 || len(fc.fees) != 2 {
		t.Fatalf("%d records, %d settlements, fees %v; want 1, 1 and two fees", len(rows.rows), len(guard.settled), fc.fees)
	}
	rec := rows.rows[0]
	turnCost := rec.CostMicros - sumCost
	if turnCost <= 0 || guard.settled[0] != rec.CostMicros {
		t.Fatalf("record cost %d (summary %d), settled %d: want the turn's cost plus the summary's, settled whole", rec.CostMicros, sumCost, guard.settled[0])
	}
	if rec.SavingsMicros != rec.BaselineMicros-rec.CostMicros {
		t.Errorf("savings %d, want baseline %d - cost %d", rec.SavingsMicros, rec.BaselineMicros, rec.CostMicros)
	}
	if want := handoverPlan.Fee(turnCost); fc.fees[1] != want {
		t.Errorf("turn fee %d, want %d: the fee on the turn's own cost %d (the summary pays its own)", fc.fees[1], want, turnCost)
	}
}

// TestHandoverSummaryNotSettledOnPlatform: a turn served on a platform
// credential after a summary on the organisation's own credential settles
// the plan's price of the turn's own cost: the summary pays its BYOK fee
// and is not priced again into the settlement (though the record's cost
// includes it).
func TestHandoverSummaryNotSettledOnPlatform(t *testing.T) {
	plan := &credits.Plan{ID: "p", Providers: []string{"openai", "anthropic"}, MultiplierBP: 20000, BYOKFeeBP: 5000}
	byok := map[string]bool{"openai": true}
	fc := &fakeCredits{funding: Funding{Plan: plan, BYOK: byok}, balance: 1 << 40}
	rows := &requestRows{}
	s, ex := serveHandoverTurnOn(t, byok, fc, rows)
	sumCost := Pricer{Catalog: s.d.Catalog}.CostMicros(ex.summaries[0], llm.Usage{Input: 200_000, Output: 2_000})
	if len(rows.rows) != 1 || len(fc.settled) != 1 || len(fc.fees) != 1 {
		t.Fatalf("%d records, settled %v, fees %v; want 1 record, one settlement and the summary's fee", len(rows.rows), fc.settled, fc.fees)
	}
	turnCost := rows.rows[0].CostMicros - sumCost
	if turnCost <= 0 || fc.settled[0] != plan.Price(turnCost) || fc.fees[0] != plan.Fee(sumCost) {
		t.Errorf("settled %d and fees %v; want the turn's price %d and the summary's fee %d (turn cost %d, summary %d)",
			fc.settled[0], fc.fees, plan.Price(turnCost), plan.Fee(sumCost), turnCost, sumCost)
	}
}
