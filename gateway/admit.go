package gateway

import (
	"context"
	"time"
)

// scopeStage refuses keys without the "inference" scope, before anything
// is counted against them.
type scopeStage struct{}

func (scopeStage) run(_ context.Context, p *pass) error {
	if !p.t.Caller.HasScope("inference") {
		return ErrForbidden
	}
	return nil
}

// admitStage admits the turn against the key's rate limits and budgets
// (failing closed, see Guard) and settles what it cost once it ended.
type admitStage struct{ guard Guard }

func (a admitStage) run(ctx context.Context, p *pass) error {
	return a.guard.Admit(ctx, p.t.Caller, p.t.Received)
}

// finish settles a turn that cost money or used tokens (after account).
func (a admitStage) finish(ctx context.Context, p *pass, _ error) {
	r := p.rec
	if r.CostMicros > 0 || r.InputTokens+r.OutputTokens > 0 {
		a.guard.Settle(ctx, p.t.Caller, r.CostMicros, int(r.InputTokens+r.OutputTokens+r.CacheRead+r.CacheWrite), time.Now())
	}
}
