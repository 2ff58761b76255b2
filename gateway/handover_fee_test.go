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

// TestHandoverSummaryPaysTheBYOKFee: a routed turn that switches models on
// a long session summarises the history on the organisation's own
// credential; on a plan with a BYOK fee the credits stage charges the fee
// on the summary call as on the turn itself (two fee debits, the first
// the plan's fee on the summary's cost).
func TestHandoverSummaryPaysTheBYOKFee(t *testing.T) {
	pins := routingtest.NewPinStore(nil)
	key := routing.PinKey{OrgID: "org", KeyID: "key", Session: "s1", Role: "main"}
	now := time.Now()
	// Pinned to a model the organisation can no longer reach: a sure switch.
	if err := pins.Put(context.Background(), key, routing.Pin{Model: "gemini-2.5-flash", Turns: 12, LastInputTokens: 20000, Created: now, Updated: now}, 0); err != nil {
		t.Fatal(err)
	}
	byok := map[string]bool{"openai": true, "anthropic": true}
	plan := &credits.Plan{ID: "p", Providers: []string{"openai"}, MultiplierBP: 10000, BYOKFeeBP: 5000}
	fc := &fakeCredits{funding: Funding{Plan: plan, BYOK: byok}, balance: 1 << 40}
	ex := &summaryExec{platformExec: platformExec{byok: byok}}
	s := testService(t, Config{}, Deps{Executor: ex, Routers: StaticRouters{Router: preferRouter{"claude-haiku-4-5"}}},
		WithPins(pins, routing.HandoverConfig{}), WithCredits(fc), WithProviders(fixedProviders{"openai": true, "anthropic": true}))
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
	if err := s.Serve(context.Background(), turn, out); err != nil {
		t.Fatal(err)
	}
	if out.served.Model != "claude-haiku-4-5" || len(ex.summaries) != 1 {
		t.Fatalf("served %s with %d summaries, want claude-haiku-4-5 after one handover summary", out.served.Model, len(ex.summaries))
	}
	sum := ex.summaries[0]
	wantFee := plan.Fee(Pricer{Catalog: s.d.Catalog}.CostMicros(sum, llm.Usage{Input: 200_000, Output: 2_000}))
	if len(fc.fees) != 2 || fc.fees[0] != wantFee || wantFee <= 0 {
		t.Fatalf("fees %v, want %d on the summary by %s/%s, then the turn's fee", fc.fees, wantFee, sum.Provider, sum.Model)
	}
	if len(fc.reserved) != 0 {
		t.Errorf("reserved %v on BYOK credentials", fc.reserved)
	}
}
