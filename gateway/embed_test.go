package gateway

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
)

// embedExec answers an embeddings operation with usage input tokens from
// its first target, noting the plan and operation it got; err fails it.
type embedExec struct {
	answerExec // Buffered, which embeddings never use
	usage      int
	raw        string // the answer ("" for an empty list)
	err        error
	plan       dispatch.Plan
	op         *dispatch.Operation
	meta       dispatch.Meta
}

func (e *embedExec) Run(_ context.Context, m dispatch.Meta, p dispatch.Plan, op *dispatch.Operation, _ dispatch.StreamWriter) (*dispatch.Result, error) {
	e.plan, e.op, e.meta = p, op, m
	res := &dispatch.Result{Served: p.Targets[0], Attempts: 1, Usage: llm.Usage{Input: e.usage}}
	if e.err != nil {
		return res, e.err
	}
	res.RawBody = []byte(`{"object":"list","data":[]}`)
	if e.raw != "" {
		res.RawBody = []byte(e.raw)
	}
	return res, nil
}

func TestEmbed(t *testing.T) {
	upstreamDown := errors.New("upstream down")
	for _, tt := range []struct {
		name      string
		body      string
		scopes    []string
		settings  routing.OrgSettings
		guardErr  error
		execErr   error
		wantErr   error
		wantCalls bool
		// the record
		wantModel, wantServed string
		wantCost              int64
		wantSettled           []int64
	}{
		{name: "served and priced", body: `{"model":"text-embedding-3-small","input":["a","b"]}`,
			wantCalls: true, wantModel: "text-embedding-3-small", wantServed: "text-embedding-3-small",
			wantCost: 20_000, wantSettled: []int64{20_000}},
		{name: "alias of the organisation", body: `{"model":"embed","input":"a"}`,
			settings:  routing.OrgSettings{Aliases: map[string]string{"embed": "text-embedding-3-large"}},
			wantCalls: true, wantModel: "embed", wantServed: "text-embedding-3-large", wantCost: 130_000, wantSettled: []int64{130_000}},
		{name: "gemini through its OpenAI-compatible endpoint", body: `{"model":"gemini-embedding-001","input":"a"}`,
			wantCalls: true, wantModel: "gemini-embedding-001", wantServed: "gemini-embedding-001", wantCost: 150_000, wantSettled: []int64{150_000}},
		{name: "chat model refused", body: `{"model":"gpt-5","input":"a"}`, wantErr: ErrUnknownModel, wantModel: "gpt-5"},
		{name: "denied by the organisation", body: `{"model":"text-embedding-3-small","input":"a"}`,
			settings: routing.OrgSettings{Deny: []string{"text-embedding-3-small"}}, wantErr: ErrModelNotAllowed, wantModel: "text-embedding-3-small"},
		{name: "bad input", body: `{"model":"text-embedding-3-small","input":[]}`, wantErr: llm.ErrMalformed, wantModel: "text-embedding-3-small"},
		{name: "route-only key", body: `{"model":"text-embedding-3-small","input":"a"}`, scopes: []string{"route"},
			wantErr: ErrForbidden, wantModel: "text-embedding-3-small"},
		{name: "over budget: no upstream call, model still recorded", body: `{"model":"text-embedding-3-small","input":"a"}`,
			guardErr: errBudget, wantErr: errBudget, wantModel: "text-embedding-3-small"},
		{name: "upstream failed after an attempt", body: `{"model":"text-embedding-3-small","input":"a"}`,
			execErr: upstreamDown, wantErr: upstreamDown, wantCalls: true, wantModel: "text-embedding-3-small",
			wantServed: "text-embedding-3-small", wantCost: 20_000, wantSettled: []int64{20_000}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			exec := &embedExec{usage: 1_000_000, err: tt.execErr}
			rows := &requestRows{}
			g := &guardCalls{err: tt.guardErr}
			s := testService(t, Config{MaxAttempts: 3}, Deps{Executor: exec, Recorder: rows,
				Routers: fakeRouters{settings: tt.settings, err: routing.ErrNoBundle}}, WithGuard(g))
			scopes := tt.scopes
			if scopes == nil {
				scopes = []string{"inference"}
			}
			out := &captureOutput{}
			err := s.Embed(context.Background(), &Turn{RequestID: "req_e", Received: time.Now(), Format: llm.FormatChat,
				Body: []byte(tt.body), Caller: Caller{OrgID: "org", KeyID: "key", Scopes: scopes}}, out)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err %v, want %v", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if (exec.op != nil) != tt.wantCalls {
				t.Fatalf("executor called %v, want %v", exec.op != nil, tt.wantCalls)
			}
			if tt.wantCalls {
				if exec.op.Endpoint != dispatch.EndpointEmbeddings || string(exec.op.RawBody) != tt.body ||
					exec.plan.MaxAttempts != 3 || exec.meta.OrgID != "org" || exec.meta.RequestID != "req_e" {
					t.Errorf("operation %+v plan %+v meta %+v", exec.op, exec.plan, exec.meta)
				}
				for _, tg := range exec.plan.Targets {
					if tg.Format != llm.FormatChat || tg.Model != tt.wantServed {
						t.Errorf("target %+v", tg)
					}
				}
			}
			if tt.wantErr == nil && (out.commits != 1 || out.served.Model != tt.wantServed || out.buf.String() != `{"object":"list","data":[]}`) {
				t.Errorf("output %d commits, served %+v, body %q", out.commits, out.served, out.buf.String())
			}
			if len(rows.rows) != 1 {
				t.Fatalf("%d records", len(rows.rows))
			}
			r := rows.rows[0]
			if r.RequestedModel != tt.wantModel || r.ServedModel != tt.wantServed || r.CostMicros != tt.wantCost ||
				r.SavingsMicros != 0 || r.OrgID != "org" || r.RequestID != "req_e" {
				t.Errorf("record %+v", r)
			}
			if tt.wantCalls && (r.RouteKind != RouteEmbeddings || r.InputTokens != 1_000_000 || r.OutputTokens != 0) {
				t.Errorf("record route %q tokens %d/%d", r.RouteKind, r.InputTokens, r.OutputTokens)
			}
			if tt.wantErr != nil && r.Status != 500 {
				t.Errorf("failed request recorded with status %d", r.Status)
			}
			if len(g.settled) != len(tt.wantSettled) || (len(g.settled) == 1 && g.settled[0] != tt.wantSettled[0]) {
				t.Errorf("settled %v, want %v", g.settled, tt.wantSettled)
			}
		})
	}
}

var errBudget = errors.New("budget spent")

// TestEmbedGemini: a Gemini embedContent is re-encoded as an OpenAI
// request for the model named in the URL, and the OpenAI answer comes back
// in Gemini's shape.
func TestEmbedGemini(t *testing.T) {
	exec := &embedExec{usage: 10, raw: `{"data":[{"index":0,"embedding":[0.25,0.5]}],"usage":{"prompt_tokens":10,"total_tokens":10}}`}
	rows := &requestRows{}
	s := testService(t, Config{}, Deps{Executor: exec, Recorder: rows, Routers: fakeRouters{err: routing.ErrNoBundle}})
	out := &captureOutput{}
	err := s.Embed(context.Background(), &Turn{RequestID: "req_g", Received: time.Now(), Format: llm.FormatGemini,
		PathModel: "gemini-embedding-001", Body: []byte(`{"content":{"parts":[{"text":"hi"}]},"outputDimensionality":2}`),
		Caller: Caller{OrgID: "org", Scopes: []string{"inference"}}}, out)
	if err != nil {
		t.Fatal(err)
	}
	if exec.op.Inbound != llm.FormatChat ||
		string(exec.op.RawBody) != `{"model":"gemini-embedding-001","input":["hi"],"dimensions":2,"encoding_format":"float"}` ||
		len(exec.plan.Targets) != 1 || exec.plan.Targets[0].Provider != "google-openai" {
		t.Errorf("operation %s inbound %s plan %+v", exec.op.RawBody, exec.op.Inbound, exec.plan)
	}
	if out.buf.String() != `{"embedding":{"values":[0.25,0.5]}}` || out.served.Provider != "google-openai" {
		t.Errorf("answer %s served %+v", out.buf.String(), out.served)
	}
	if r := rows.rows[0]; r.Format != string(llm.FormatGemini) || r.RequestedModel != "gemini-embedding-001" || r.InputTokens != 10 {
		t.Errorf("record %+v", r)
	}
}

// platformEmbedExec is embedExec behind the credential rule of app's
// resolver: a target runs on the organisation's own credential, or on a
// platform one only when the credits stage reserved for its provider.
type platformEmbedExec struct {
	embedExec
	byok map[string]bool
}

func (e *platformEmbedExec) Run(ctx context.Context, m dispatch.Meta, p dispatch.Plan, op *dispatch.Operation, w dispatch.StreamWriter) (*dispatch.Result, error) {
	if t := p.Targets[0]; !e.byok[t.Provider] && !UsePlatform(ctx, t.Provider) {
		return nil, dispatch.ErrNotConfigured
	}
	return e.embedExec.Run(ctx, m, p, op, w)
}

// TestEmbedCredits: on a hosted plan an embeddings request pays like a
// turn: on a platform credential it reserves its maximum cost and settles
// the actual cost at the plan's prices, is refused (nothing sent upstream)
// when the balance cannot cover it, and on the organisation's own
// credential it is charged the plan's BYOK fee.
func TestEmbedCredits(t *testing.T) {
	plan := &credits.Plan{ID: "p", Providers: []string{"openai"}, MultiplierBP: 15000, BYOKFeeBP: 1000}
	body := `{"model":"text-embedding-3-small","input":["a","b"]}`
	const cost = 20_000 // 1M input tokens at $0.02 per million
	for _, tt := range []struct {
		name                                string
		funding                             Funding
		balance                             int64
		wantErr                             error
		wantRun                             bool
		wantReserved, wantSettled, wantFees []int64
	}{
		{name: "platform credential: reserve, then settle at the plan's prices", funding: Funding{Plan: plan}, balance: 1 << 40,
			wantRun: true, wantReserved: []int64{plan.Price(int64(float64(len(body))*0.02) + 1)}, wantSettled: []int64{plan.Price(cost)}},
		{name: "balance spent: refused, nothing sent upstream", funding: Funding{Plan: plan}, balance: 0,
			wantErr: credits.ErrInsufficientCredits},
		{name: "own credential: the BYOK fee, no hold", funding: Funding{Plan: plan, BYOK: map[string]bool{"openai": true}},
			wantRun: true, wantFees: []int64{plan.Fee(cost)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fc := &fakeCredits{funding: tt.funding, balance: tt.balance}
			exec := &platformEmbedExec{embedExec: embedExec{usage: 1_000_000}, byok: tt.funding.BYOK}
			s := testService(t, Config{}, Deps{Executor: exec, Routers: fakeRouters{err: routing.ErrNoBundle}}, WithCredits(fc))
			err := s.Embed(context.Background(), &Turn{RequestID: "req_e", Received: time.Now(), Format: llm.FormatChat,
				Body: []byte(body), Caller: Caller{OrgID: "org", KeyID: "key", Scopes: []string{"inference"}}}, &captureOutput{})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err %v, want %v", err, tt.wantErr)
			}
			if (exec.op != nil) != tt.wantRun || !slices.Equal(fc.reserved, tt.wantReserved) ||
				!slices.Equal(fc.settled, tt.wantSettled) || !slices.Equal(fc.fees, tt.wantFees) || fc.released != 0 {
				t.Errorf("ran %v reserved %v settled %v fees %v released %d; want ran %v reserved %v settled %v fees %v",
					exec.op != nil, fc.reserved, fc.settled, fc.fees, fc.released, tt.wantRun, tt.wantReserved, tt.wantSettled, tt.wantFees)
			}
		})
	}
}
