package gateway

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
)

// preferRouter is a Router choosing the first of its models that is
// eligible.
type preferRouter []string

func (r preferRouter) Decide(_ context.Context, q routing.Query) (routing.Decision, error) {
	for _, m := range r {
		if slices.Contains(q.Eligible, m) {
			return routing.Decision{Model: m, Scores: []routing.ModelScore{{Model: m, Score: 1}}}, nil
		}
	}
	return routing.Decision{}, routing.ErrUnavailable
}

// TestCacheFollowsThePlan: the plan is checked before the cache is
// consulted, so after a plan downgrade an answer cached from a model the
// plan no longer covers is never served: an explicit request for it is
// refused (403 billing.model_not_on_plan, nothing written), and a routed
// request is answered afresh by a model the plan still covers.
func TestCacheFollowsThePlan(t *testing.T) {
	wide := &credits.Plan{ID: "wide", Providers: []string{"openai"}, MultiplierBP: 10000}
	narrow := &credits.Plan{ID: "narrow", Providers: []string{"openai", "openrouter"}, Models: []string{"gpt-5-nano"}, MultiplierBP: 10000}
	for _, tt := range []struct {
		name        string
		model       string
		after       *credits.Plan
		wantErr     error
		wantRoute   string
		wantModel   string
		wantUpCalls int
	}{
		{name: "unchanged plan hits", model: "gpt-5-mini", after: wide, wantRoute: RouteCache, wantModel: "gpt-5-mini", wantUpCalls: 1},
		{name: "explicit model off the new plan is refused", model: "gpt-5-mini", after: narrow, wantErr: ErrNotOnPlan, wantUpCalls: 1},
		{name: "routed answer from a model off the new plan is not served", model: "auto", after: narrow,
			wantRoute: RouteRouted, wantModel: "gpt-5-nano", wantUpCalls: 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			store := storedSignal{routing.NewMemoryCacheStore(0, 0, nil), make(chan struct{}, 4)}
			cache, err := routing.NewCache(store, nil, routing.CacheConfig{})
			if err != nil {
				t.Fatal(err)
			}
			fc := &fakeCredits{funding: Funding{Plan: wide}, balance: 1 << 40}
			ex := &platformExec{}
			s := testService(t, Config{}, Deps{Executor: ex, Routers: StaticRouters{Router: preferRouter{"gpt-5-mini", "gpt-5-nano"}}},
				WithCache(cache), WithCredits(fc), WithProviders(fixedProviders{"openai": true}))
			turn := func() *Turn {
				return &Turn{RequestID: "req_1", Received: time.Now(), Format: llm.FormatChat, Header: http.Header{},
					Body:   []byte(`{"model":"` + tt.model + `","messages":[{"role":"user","content":"what is a loom?"}]}`),
					Caller: Caller{OrgID: "org", KeyID: "key", Scopes: []string{"inference"}}}
			}
			first := &captureOutput{}
			if err := s.Serve(context.Background(), turn(), first); err != nil {
				t.Fatal(err)
			}
			if first.served.Model != "gpt-5-mini" {
				t.Fatalf("first turn served by %s, want gpt-5-mini (the router's first choice on the wide plan)", first.served.Model)
			}
			select {
			case <-store.stored:
			case <-time.After(5 * time.Second):
				t.Fatal("the first answer was never cached")
			}
			fc.funding = Funding{Plan: tt.after}
			out := &captureOutput{}
			err = s.Serve(context.Background(), turn(), out)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("second turn: err %v (route %s model %s), want %v", err, out.served.Route, out.served.Model, tt.wantErr)
			}
			if ex.runs != tt.wantUpCalls {
				t.Errorf("upstream calls %d, want %d", ex.runs, tt.wantUpCalls)
			}
			if err != nil {
				if out.commits != 0 || out.buf.Len() != 0 {
					t.Errorf("a refused turn wrote %d commits and %q", out.commits, out.buf.String())
				}
				return
			}
			if out.served.Route != tt.wantRoute || out.served.Model != tt.wantModel {
				t.Errorf("served route %s model %s, want %s %s", out.served.Route, out.served.Model, tt.wantRoute, tt.wantModel)
			}
		})
	}
}

// TestCacheMissesAProviderDroppedFromThePlan: a plan narrowed from openai
// and anthropic to openai alone covers claude-haiku-4-5 no more (anthropic
// is a catalog provider the plan no longer names, and the organisation has
// no credential of its own for it), so the answer cached from it on the
// wider plan is not served: the turn is refused as off the plan, nothing
// sent upstream.
func TestCacheMissesAProviderDroppedFromThePlan(t *testing.T) {
	store := storedSignal{routing.NewMemoryCacheStore(0, 0, nil), make(chan struct{}, 4)}
	cache, err := routing.NewCache(store, nil, routing.CacheConfig{})
	if err != nil {
		t.Fatal(err)
	}
	fc := &fakeCredits{funding: Funding{Plan: &credits.Plan{ID: "wide", Providers: []string{"openai", "anthropic"}, MultiplierBP: 10000}}, balance: 1 << 40}
	ex := &platformExec{}
	s := testService(t, Config{}, Deps{Executor: ex, Routers: StaticRouters{Router: preferRouter{"claude-haiku-4-5"}}},
		WithCache(cache), WithCredits(fc), WithProviders(fixedProviders{"openai": true, "anthropic": true}))
	turn := func() *Turn {
		return &Turn{RequestID: "req_1", Received: time.Now(), Format: llm.FormatChat, Header: http.Header{},
			Body:   []byte(`{"model":"claude-haiku-4-5","messages":[{"role":"user","content":"what is a loom?"}]}`),
			Caller: Caller{OrgID: "org", KeyID: "key", Scopes: []string{"inference"}}}
	}
	if err := s.Serve(context.Background(), turn(), &captureOutput{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-store.stored:
	case <-time.After(5 * time.Second):
		t.Fatal("the first answer was never cached")
	}
	fc.funding = Funding{Plan: &credits.Plan{ID: "narrow", Providers: []string{"openai"}, MultiplierBP: 10000}}
	out := &captureOutput{}
	err = s.Serve(context.Background(), turn(), out)
	if !errors.Is(err, ErrNotOnPlan) || out.served.Route == RouteCache || out.commits != 0 {
		t.Fatalf("second turn: err %v, route %s model %s, %d commits; want ErrNotOnPlan, nothing written", err, out.served.Route, out.served.Model, out.commits)
	}
	if ex.runs != 1 {
		t.Errorf("upstream calls %d, want 1 (the first turn's only)", ex.runs)
	}
}
