package gateway

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
)

// guardCalls is a Guard refusing with err and noting what it settled.
type guardCalls struct {
	err     error
	admits  int
	settled []int64
	tokens  []int
	ctx     context.Context // the last Settle's
}

func (g *guardCalls) Admit(context.Context, Caller, time.Time) error { g.admits++; return g.err }
func (g *guardCalls) Settle(ctx context.Context, _ Caller, cost int64, tokens int, _ time.Time) {
	g.settled, g.tokens, g.ctx = append(g.settled, cost), append(g.tokens, tokens), ctx
}

// cancelingExec answers like answerExec, then cancels the turn's context
// (the client went away as the answer ended).
type cancelingExec struct {
	answerExec
	cancel context.CancelFunc
}

func (e cancelingExec) Run(ctx context.Context, m dispatch.Meta, plan dispatch.Plan, op *dispatch.Operation, out dispatch.StreamWriter) (*dispatch.Result, error) {
	defer e.cancel()
	return e.answerExec.Run(ctx, m, plan, op, out)
}

type traceKey struct{}

// TestSettleContext: the guard settles a turn on the turn's context
// without its cancellation: its values (traces, log fields) reach the
// settlement, and a client that went away does not cancel it.
func TestSettleContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), traceKey{}, "trace-1"))
	defer cancel()
	g := &guardCalls{}
	s := testService(t, Config{}, Deps{Executor: cancelingExec{cancel: cancel}}, WithGuard(g))
	turn := &Turn{RequestID: "req", Received: time.Now(), Format: llm.FormatChat,
		Body:   []byte(`{"model":"gpt-5-mini","messages":[{"role":"user","content":"hi"}]}`),
		Caller: Caller{OrgID: "org", KeyID: "key", Scopes: []string{"inference"}}}
	if err := s.Serve(ctx, turn, &captureOutput{}); err != nil {
		t.Fatal(err)
	}
	if ctx.Err() == nil || g.ctx == nil || g.ctx.Value(traceKey{}) != "trace-1" || g.ctx.Err() != nil {
		t.Fatalf("settled on %v (turn canceled: %v), want the turn's values without its cancellation", g.ctx, ctx.Err())
	}
}

func TestScopeAndAdmit(t *testing.T) {
	limited := errors.New("rate limited")
	for _, tt := range []struct {
		name       string
		scopes     []string
		guardErr   error
		wantErr    error
		wantAdmits int
	}{
		{name: "inference key admitted", scopes: []string{"inference"}, wantAdmits: 1},
		{name: "route-only key refused before the guard", scopes: []string{"route"}, wantErr: ErrForbidden},
		{name: "guard refuses", scopes: []string{"inference"}, guardErr: limited, wantErr: limited, wantAdmits: 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := &guardCalls{err: tt.guardErr}
			s := testService(t, Config{}, Deps{}, WithGuard(g))
			turn := &Turn{RequestID: "req", Received: time.Now(), Format: llm.FormatChat, Body: []byte(`{`),
				Caller: Caller{OrgID: "org", KeyID: "key", Scopes: tt.scopes}}
			err := s.Serve(context.Background(), turn, &captureOutput{})
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("err %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr == nil && err == nil {
				t.Fatal("a body that does not decode was served")
			}
			if g.admits != tt.wantAdmits {
				t.Errorf("admits %d, want %d", g.admits, tt.wantAdmits)
			}
		})
	}
}

func TestSettle(t *testing.T) {
	for _, tt := range []struct {
		name        string
		rec         analytics.Request
		wantSettled []int64
		wantTokens  []int
	}{
		{name: "cost and tokens", rec: analytics.Request{CostMicros: 40, InputTokens: 3, OutputTokens: 2, CacheRead: 5},
			wantSettled: []int64{40}, wantTokens: []int{10}},
		{name: "tokens only (a cache hit)", rec: analytics.Request{InputTokens: 3}, wantSettled: []int64{0}, wantTokens: []int{3}},
		{name: "nothing used", rec: analytics.Request{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := &guardCalls{}
			rec := tt.rec
			admitStage{guard: g}.finish(context.Background(), &pass{t: &Turn{}, rec: &rec}, nil)
			if len(g.settled) != len(tt.wantSettled) || (len(g.settled) == 1 && (g.settled[0] != tt.wantSettled[0] || g.tokens[0] != tt.wantTokens[0])) {
				t.Errorf("settled %v tokens %v, want %v %v", g.settled, g.tokens, tt.wantSettled, tt.wantTokens)
			}
		})
	}
}
