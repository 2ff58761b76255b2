package gateway

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
)

// fakeCredits is a Credits over a plain balance, noting every call.
type fakeCredits struct {
	funding  Funding
	balance  int64
	reserved []int64
	settled  []int64
	released int
	fees     []int64
	// ledgerDown fails this many Settle and ChargeFee calls with
	// credits.ErrUnavailable first.
	ledgerDown int
	calls      int
}

func (f *fakeCredits) down() error {
	f.calls++
	if f.ledgerDown > 0 {
		f.ledgerDown--
		return fmt.Errorf("fake ledger: %w", credits.ErrUnavailable)
	}
	return nil
}

func (f *fakeCredits) Funding(context.Context, string) (Funding, error) { return f.funding, nil }
func (f *fakeCredits) Reserve(_ context.Context, org, req string, micros int64) (*credits.Reservation, error) {
	if micros > f.balance {
		return nil, credits.ErrInsufficientCredits
	}
	f.reserved = append(f.reserved, micros)
	return &credits.Reservation{ID: "r", OrgID: org, RequestID: req, AmountMicros: micros}, nil
}
func (f *fakeCredits) Settle(_ context.Context, _ *credits.Reservation, u credits.Use) error {
	if err := f.down(); err != nil {
		return err
	}
	f.settled = append(f.settled, u.Micros)
	return nil
}
func (f *fakeCredits) Release(context.Context, *credits.Reservation) error { f.released++; return nil }
func (f *fakeCredits) ChargeFee(_ context.Context, _, _ string, u credits.Use) error {
	if err := f.down(); err != nil {
		return err
	}
	f.fees = append(f.fees, u.Micros)
	return nil
}

// platformExec answers like answerExec when the target's provider has a
// BYOK credential or the turn may use a platform one (as app's credential
// resolver decides), else it is not configured; it counts its runs.
type platformExec struct {
	byok  map[string]bool
	runs  int
	fail  error
	sawOK bool
}

func (e *platformExec) Run(ctx context.Context, m dispatch.Meta, plan dispatch.Plan, op *dispatch.Operation, out dispatch.StreamWriter) (*dispatch.Result, error) {
	e.runs++
	t := plan.Targets[0]
	if !e.byok[t.Provider] && !UsePlatform(ctx, t.Provider) {
		return nil, dispatch.ErrNotConfigured
	}
	e.sawOK = true
	if e.fail != nil {
		return &dispatch.Result{}, e.fail
	}
	res, err := answerExec{}.Run(ctx, m, plan, op, out)
	res.Attempts = 1
	return res, err
}

func TestCreditsStage(t *testing.T) {
	plan := &credits.Plan{ID: "p", Providers: []string{"openai"}, MultiplierBP: 15000, BYOKFeeBP: 1000}
	narrow := &credits.Plan{ID: "n", Providers: []string{"openai"}, Models: []string{"gpt-5"}, MultiplierBP: 10000}
	body := `{"model":"gpt-5-mini","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`
	for _, tt := range []struct {
		name         string
		funding      Funding
		balance      int64
		fail         error
		wantErr      error
		wantRuns     int
		wantReserved int
		wantSettled  int
		wantReleased int
		wantFees     int
	}{
		{name: "no plan: no reservation, BYOK serves", funding: Funding{BYOK: map[string]bool{"openai": true}}, wantRuns: 1},
		{name: "platform credential: reserve then settle at the plan's prices", funding: Funding{Plan: plan}, balance: 1 << 40,
			wantRuns: 1, wantReserved: 1, wantSettled: 1},
		{name: "BYOK wins: no reservation, the plan's fee", funding: Funding{Plan: plan, BYOK: map[string]bool{"openai": true}},
			wantRuns: 1, wantFees: 1},
		{name: "insufficient credit: nothing sent upstream", funding: Funding{Plan: plan}, balance: 10,
			wantErr: credits.ErrInsufficientCredits},
		{name: "failed call releases everything", funding: Funding{Plan: plan}, balance: 1 << 40, fail: errors.New("upstream 500"),
			wantErr: errors.New(""), wantRuns: 1, wantReserved: 1, wantReleased: 1},
		{name: "model not on the plan: refused, nothing sent upstream (its other providers are catalog ones the plan does not name)",
			funding: Funding{Plan: narrow}, balance: 1 << 40, wantErr: ErrNotOnPlan},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fc := &fakeCredits{funding: tt.funding, balance: tt.balance}
			ex := &platformExec{byok: tt.funding.BYOK, fail: tt.fail}
			s := testService(t, Config{}, Deps{Executor: ex}, WithCredits(fc))
			turn := &Turn{RequestID: "req-1", Received: time.Now(), Format: llm.FormatChat, Body: []byte(body),
				Caller: Caller{OrgID: "org", KeyID: "key", Scopes: []string{"inference"}}}
			err := s.Serve(context.Background(), turn, &captureOutput{})
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("err %v", err)
			case tt.wantErr != nil && err == nil:
				t.Fatalf("served, want %v", tt.wantErr)
			case tt.wantErr != nil && tt.wantErr.Error() != "" && !errors.Is(err, tt.wantErr):
				t.Fatalf("err %v, want %v", err, tt.wantErr)
			}
			if ex.runs != tt.wantRuns || len(fc.reserved) != tt.wantReserved || len(fc.settled) != tt.wantSettled ||
				fc.released != tt.wantReleased || len(fc.fees) != tt.wantFees {
				t.Fatalf("runs %d reserved %v settled %v released %d fees %v", ex.runs, fc.reserved, fc.settled, fc.released, fc.fees)
			}
		})
	}
}

// TestCreditsAmounts pins the reservation (maximum cost) and the debit
// (actual cost at the plan's prices) for gpt-5-mini at 1.5x.
func TestCreditsAmounts(t *testing.T) {
	plan := &credits.Plan{ID: "p", Providers: []string{"openai"}, MultiplierBP: 15000}
	fc := &fakeCredits{funding: Funding{Plan: plan}, balance: 1 << 40}
	s := testService(t, Config{}, Deps{Executor: &platformExec{}}, WithCredits(fc))
	body := `{"model":"gpt-5-mini","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`
	turn := &Turn{RequestID: "req-1", Received: time.Now(), Format: llm.FormatChat, Body: []byte(body),
		Caller: Caller{OrgID: "org", KeyID: "key", Scopes: []string{"inference"}}}
	if err := s.Serve(context.Background(), turn, &captureOutput{}); err != nil {
		t.Fatal(err)
	}
	m, _ := s.d.Catalog.Lookup("gpt-5-mini")
	price := m.Price
	// 2 bytes of text + 16 per message = 18 bytes, 5 estimated tokens, 20 reserved input tokens.
	maxCost := int64((20*max(price.Input, price.CacheWrite)/1e6+100*price.Output/1e6)*1e6) + 1
	actual := Pricer{Catalog: s.d.Catalog}.CostMicros(dispatch.Target{Model: "gpt-5-mini", Provider: "openai", Upstream: m.Bindings[0].Upstream}, llm.Usage{Input: 3, Output: 2})
	if len(fc.reserved) != 1 || fc.reserved[0] != plan.Price(maxCost) {
		t.Errorf("reserved %v, want %d (max cost %d at 1.5x)", fc.reserved, plan.Price(maxCost), maxCost)
	}
	if len(fc.settled) != 1 || fc.settled[0] != plan.Price(actual) || fc.settled[0] > fc.reserved[0] {
		t.Errorf("settled %v, want %d (actual %d at 1.5x), within the reservation", fc.settled, plan.Price(actual), actual)
	}
}

// TestBYOKFeeAmount: a turn its own credential served on a plan with a fee
// is charged the fee on its catalog cost (cost x bp / 10000, rounded up),
// once; a plan without a fee charges nothing, and nothing is reserved.
func TestBYOKFeeAmount(t *testing.T) {
	body := `{"model":"gpt-5-mini","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`
	for _, tt := range []struct {
		name  string
		feeBP int64
	}{{name: "a 2.5% fee", feeBP: 250}, {name: "no fee", feeBP: 0}} {
		t.Run(tt.name, func(t *testing.T) {
			plan := &credits.Plan{ID: "p", Providers: []string{"openai"}, MultiplierBP: 15000, BYOKFeeBP: tt.feeBP}
			byok := map[string]bool{"openai": true}
			fc := &fakeCredits{funding: Funding{Plan: plan, BYOK: byok}}
			s := testService(t, Config{}, Deps{Executor: &platformExec{byok: byok}}, WithCredits(fc))
			turn := &Turn{RequestID: "req-1", Received: time.Now(), Format: llm.FormatChat, Body: []byte(body),
				Caller: Caller{OrgID: "org", KeyID: "key", Scopes: []string{"inference"}}}
			if err := s.Serve(context.Background(), turn, &captureOutput{}); err != nil {
				t.Fatal(err)
			}
			m, _ := s.d.Catalog.Lookup("gpt-5-mini")
			cost := Pricer{Catalog: s.d.Catalog}.CostMicros(dispatch.Target{Model: "gpt-5-mini", Provider: "openai", Upstream: m.Bindings[0].Upstream}, llm.Usage{Input: 3, Output: 2})
			want := (cost*tt.feeBP + credits.BasisPoints - 1) / credits.BasisPoints
			if cost <= 0 || len(fc.fees) != 1 || fc.fees[0] != want || len(fc.reserved) != 0 || len(fc.settled) != 0 {
				t.Fatalf("fees %v reserved %v settled %v, want one fee of %d (cost %d at %d bp) and no hold", fc.fees, fc.reserved, fc.settled, want, cost, tt.feeBP)
			}
		})
	}
}

// TestCreditsPassThroughReservesMaxOutput: a pass-through name (no catalog
// entry of its own) that does not set max_tokens still reserves its
// maximum cost: output at the maximum of the catalog model it is priced
// as, not input alone.
func TestCreditsPassThroughReservesMaxOutput(t *testing.T) {
	plan := &credits.Plan{ID: "p", Providers: []string{"openai"}, MultiplierBP: 10000}
	fc := &fakeCredits{funding: Funding{Plan: plan}, balance: 1 << 40}
	s := testService(t, Config{}, Deps{Executor: &platformExec{}}, WithCredits(fc))
	pt, ok := s.d.Catalog.PassThroughOf("gpt-5-mini-2099")
	if !ok {
		t.Fatal("gpt-5-mini-2099 is not a pass-through name")
	}
	body := `{"model":"gpt-5-mini-2099","messages":[{"role":"user","content":"hi"}]}`
	turn := &Turn{RequestID: "req-1", Received: time.Now(), Format: llm.FormatChat, Body: []byte(body),
		Caller: Caller{OrgID: "org", KeyID: "key", Scopes: []string{"inference"}}}
	if err := s.Serve(context.Background(), turn, &captureOutput{}); err != nil {
		t.Fatal(err)
	}
	outputOnly := int64(float64(pt.PricedAs.MaxOutput) * pt.Price.Output)
	if len(fc.reserved) != 1 || fc.reserved[0] < outputOnly {
		t.Errorf("reserved %v, want at least %d (%d output tokens of %s)", fc.reserved, outputOnly, pt.PricedAs.MaxOutput, pt.PricedAs.ID)
	}
}

// TestCreditsDebitSurvivesABriefLedgerOutage: a settlement or BYOK fee
// that fails with the ledger unavailable is tried again (each is
// idempotent), so a served call is still debited; a ledger down for good
// is tried a bounded number of times.
func TestCreditsDebitSurvivesABriefLedgerOutage(t *testing.T) {
	plan := &credits.Plan{ID: "p", Providers: []string{"openai"}, MultiplierBP: 10000, BYOKFeeBP: 1000}
	body := `{"model":"gpt-5-mini","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`
	for _, tt := range []struct {
		name                 string
		byok                 map[string]bool
		down                 int
		wantSettled, wantFee int
		wantCalls            int
	}{
		{name: "settlement", down: 2, wantSettled: 1, wantCalls: 3},
		{name: "BYOK fee", byok: map[string]bool{"openai": true}, down: 1, wantFee: 1, wantCalls: 2},
		{name: "down for good", down: 100, wantCalls: 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fc := &fakeCredits{funding: Funding{Plan: plan, BYOK: tt.byok}, balance: 1 << 40, ledgerDown: tt.down}
			s := testService(t, Config{}, Deps{Executor: &platformExec{byok: tt.byok}}, WithCredits(fc))
			turn := &Turn{RequestID: "req-1", Received: time.Now(), Format: llm.FormatChat, Body: []byte(body),
				Caller: Caller{OrgID: "org", KeyID: "key", Scopes: []string{"inference"}}}
			if err := s.Serve(context.Background(), turn, &captureOutput{}); err != nil {
				t.Fatal(err)
			}
			if len(fc.settled) != tt.wantSettled || len(fc.fees) != tt.wantFee || fc.calls != tt.wantCalls {
				t.Errorf("settled %v fees %v after %d calls; want %d settled, %d fees, %d calls",
					fc.settled, fc.fees, fc.calls, tt.wantSettled, tt.wantFee, tt.wantCalls)
			}
		})
	}
}

// TestRoutedCandidatesFollowThePlan: a routed turn on a plan that lists
// models is offered only the models the plan (or the organisation's own
// credentials) covers, and fails closed with ErrNotOnPlan, before the
// router runs, when none remains.
func TestRoutedCandidatesFollowThePlan(t *testing.T) {
	decision := routing.Decision{Model: "gpt-5", Scores: []routing.ModelScore{{Model: "gpt-5", Score: 0.9}}}
	for _, tt := range []struct {
		name      string
		funding   Funding
		usable    fixedProviders
		want      []string // models that must be eligible
		notOnPlan []string // models that must be dropped as not on the plan
		wantErr   error
	}{
		{name: "platform openai for gpt-5 only", usable: fixedProviders{"openai": true},
			funding: Funding{Plan: &credits.Plan{Providers: []string{"openai"}, Models: []string{"gpt-5"}}},
			want:    []string{"gpt-5"}, notOnPlan: []string{"gpt-5-mini", "gpt-5-nano"}},
		{name: "BYOK models stay candidates", usable: fixedProviders{"openai": true, "anthropic": true},
			funding: Funding{Plan: &credits.Plan{Providers: []string{"openai"}, Models: []string{"gpt-5"}}, BYOK: map[string]bool{"anthropic": true}},
			want:    []string{"gpt-5", "claude-haiku-4-5"}, notOnPlan: []string{"gpt-5-mini"}},
		{name: "a plan of every model of its providers narrows nothing", usable: fixedProviders{"openai": true},
			funding: Funding{Plan: &credits.Plan{Providers: []string{"openai"}}}, want: []string{"gpt-5", "gpt-5-mini"}},
		{name: "nothing on the plan fits: fail closed", usable: fixedProviders{"openai": true},
			funding: Funding{Plan: &credits.Plan{Providers: []string{"openai"}, Models: []string{"claude-haiku-4-5"}}},
			wantErr: ErrNotOnPlan},
	} {
		t.Run(tt.name, func(t *testing.T) {
			router := &fakeRouter{d: decision}
			src := StaticRouters{Router: router}
			s := testService(t, Config{}, Deps{Routers: src}, WithProviders(tt.usable), WithCredits(&fakeCredits{funding: tt.funding}))
			_, err := s.resolve(context.Background(), Caller{OrgID: "org"}, userReq("auto", "hi"), routingFor(context.Background(), src, "org"))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				if router.got.Eligible != nil {
					t.Errorf("the router ran with %v", router.got.Eligible)
				}
				return
			}
			for _, m := range tt.want {
				if !slices.Contains(router.got.Eligible, m) {
					t.Errorf("%s not eligible: %v", m, router.got.Eligible)
				}
			}
			for _, m := range tt.notOnPlan {
				if slices.Contains(router.got.Eligible, m) || !slices.Contains(router.got.Drops, routing.Drop{Model: m, Reason: routing.DropNotOnPlan}) {
					t.Errorf("%s eligible %v, drops %v; want it dropped as not on the plan", m, router.got.Eligible, router.got.Drops)
				}
			}
		})
	}
}

// panicExec reserves nothing itself: it takes the platform credential the
// credits stage reserved for, then panics, as a bug in a provider adapter
// would.
type panicExec struct{ answerExec }

func (panicExec) Run(ctx context.Context, _ dispatch.Meta, plan dispatch.Plan, _ *dispatch.Operation, _ dispatch.StreamWriter) (*dispatch.Result, error) {
	UsePlatform(ctx, plan.Targets[0].Provider)
	panic("adapter bug")
}

// TestCreditsHoldEndsWhenATurnPanics: a turn that panics after its
// reservation still ends its hold (released: nothing was served) before
// the panic goes on to the edge, instead of leaving it for the stale sweep.
func TestCreditsHoldEndsWhenATurnPanics(t *testing.T) {
	plan := &credits.Plan{ID: "p", Providers: []string{"openai"}, MultiplierBP: 10000}
	fc := &fakeCredits{funding: Funding{Plan: plan}, balance: 1 << 40}
	s := testService(t, Config{}, Deps{Executor: panicExec{}}, WithCredits(fc))
	body := `{"model":"gpt-5-mini","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`
	turn := &Turn{RequestID: "req-1", Received: time.Now(), Format: llm.FormatChat, Body: []byte(body),
		Caller: Caller{OrgID: "org", KeyID: "key", Scopes: []string{"inference"}}}
	var recovered any
	func() {
		defer func() { recovered = recover() }()
		_ = s.Serve(context.Background(), turn, &captureOutput{})
	}()
	if recovered != "adapter bug" {
		t.Fatalf("recovered %v, want the panic to reach the caller", recovered)
	}
	if len(fc.reserved) != 1 || fc.released != 1 || len(fc.settled) != 0 {
		t.Fatalf("reserved %v released %d settled %v, want the hold released", fc.reserved, fc.released, fc.settled)
	}
}
