package gateway

import (
	"context"
	"errors"
	"testing"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
)

// fakeRouter records the query and answers with a fixed decision or error.
type fakeRouter struct {
	got routing.Query
	d   routing.Decision
	err error
}

func (f *fakeRouter) Decide(_ context.Context, q routing.Query) (routing.Decision, error) {
	f.got = q
	return f.d, f.err
}

type fixedProviders map[string]bool

func (p fixedProviders) UsableProviders(context.Context, string) (map[string]bool, error) {
	return p, nil
}

func userReq(model, text string) *llm.Request {
	return &llm.Request{Model: model, Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: text}}}}}
}

func TestResolve(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	alpha := 0.9
	decision := routing.Decision{Model: "gpt-5-mini", Alpha: 0.6, BundleID: "default", BundleRevision: "r1",
		Scores: []routing.ModelScore{{Model: "gpt-5-mini", Score: 0.8}, {Model: "claude-haiku-4-5", Score: 0.7}, {Model: "gpt-5-nano", Score: 0.2}}}
	tests := []struct {
		name        string
		caller      Caller
		model       string
		router      *fakeRouter
		wantModel   string
		wantRoute   string
		wantBase    string
		wantPolicy  string
		wantTargets []string // provider/upstream
		wantAlpha   float64
		wantCeiling bool // route-all: claude-opus-4-5 (tier 4) must not be dropped above ceiling
		wantErr     error
	}{
		{name: "explicit", model: "gpt-5-mini", wantModel: "gpt-5-mini", wantRoute: RouteExplicit, wantBase: "gpt-5-mini",
			wantPolicy: "explicit", wantTargets: []string{"openai/gpt-5-mini", "openrouter/openai/gpt-5-mini"}},
		{name: "explicit by alias", model: "claude-sonnet-4-5-20250929", wantModel: "claude-sonnet-4-5", wantRoute: RouteExplicit,
			wantBase: "claude-sonnet-4-5", wantPolicy: "explicit",
			wantTargets: []string{"anthropic/claude-sonnet-4-5-20250929", "openrouter/anthropic/claude-sonnet-4.5"}},
		{name: "unknown model", model: "llama-9", wantErr: ErrUnknownModel},
		{name: "unknown model of a clear provider passes through", model: "gpt-9", wantModel: "gpt-9", wantRoute: RouteExplicit,
			wantBase: "gpt-9", wantPolicy: "passthrough", wantTargets: []string{"openai/gpt-9"}},
		{name: "empty model", model: "", wantErr: ErrUnknownModel},
		{name: "auto", model: "auto", router: &fakeRouter{d: decision}, wantModel: "gpt-5-mini", wantRoute: RouteRouted,
			wantBase: "claude-sonnet-4-5", wantPolicy: "auto", wantAlpha: 0.6,
			wantTargets: []string{"openai/gpt-5-mini", "openrouter/openai/gpt-5-mini", "anthropic/claude-haiku-4-5-20251001", "openrouter/anthropic/claude-haiku-4.5"}},
		{name: "route-all with key alpha", caller: Caller{Policy: "route-all", Alpha: &alpha}, model: "claude-haiku-4-5",
			router: &fakeRouter{d: decision}, wantModel: "gpt-5-mini", wantRoute: RouteRouted, wantBase: "claude-haiku-4-5",
			wantPolicy: "route-all", wantAlpha: 0.9, wantCeiling: true,
			wantTargets: []string{"openai/gpt-5-mini", "openrouter/openai/gpt-5-mini", "anthropic/claude-haiku-4-5-20251001", "openrouter/anthropic/claude-haiku-4.5"}},
		{name: "router fails closed", model: "auto", router: &fakeRouter{err: errors.Join(routing.ErrUnavailable, routing.ErrEmbedTimeout)},
			wantErr: routing.ErrUnavailable},
		{name: "no router fails closed", model: "heddle/auto", wantErr: routing.ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var src RouterSource = StaticRouters{}
			if tt.router != nil {
				src = StaticRouters{Router: tt.router}
			}
			s := testService(t, Config{DefaultAlpha: 0.6, BaselineModel: "claude-sonnet-4-5"}, Deps{Catalog: cat, Routers: src},
				WithProviders(fixedProviders{"openai": true, "anthropic": true}))
			res, err := s.resolve(context.Background(), tt.caller, userReq(tt.model, "write a haiku"), routingFor(context.Background(), src, "org"))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if res.model.ID != tt.wantModel || res.route != tt.wantRoute || res.baseline.ID != tt.wantBase || res.provenance.PolicyID != tt.wantPolicy {
				t.Errorf("got model %s route %s baseline %s policy %s", res.model.ID, res.route, res.baseline.ID, res.provenance.PolicyID)
			}
			var targets []string
			for _, tg := range res.plan.Targets {
				targets = append(targets, tg.Provider+"/"+tg.Upstream)
			}
			if len(targets) != len(tt.wantTargets) {
				t.Fatalf("targets = %v, want %v", targets, tt.wantTargets)
			}
			for i := range targets {
				if targets[i] != tt.wantTargets[i] {
					t.Errorf("targets = %v, want %v", targets, tt.wantTargets)
				}
			}
			if tt.router == nil {
				return
			}
			q := tt.router.got
			if q.Alpha != tt.wantAlpha || q.Text != "write a haiku" {
				t.Errorf("query alpha %v text %q", q.Alpha, q.Text)
			}
			if res.provenance.BundleID != "default" || res.provenance.BundleRevision != "r1" {
				t.Errorf("provenance = %+v", res.provenance)
			}
			above := false
			for _, dr := range q.Drops {
				if dr.Model == "claude-opus-4-5" && dr.Reason == routing.DropAboveCeiling {
					above = true
				}
				if dr.Model == "gemini-2.5-pro" && dr.Reason != routing.DropNoBinding && dr.Reason != routing.DropAboveCeiling {
					t.Errorf("gemini drop reason %q", dr.Reason)
				}
			}
			if above != tt.wantCeiling {
				t.Errorf("opus dropped above ceiling = %v, want %v (drops %+v)", above, tt.wantCeiling, q.Drops)
			}
			for _, m := range q.Eligible {
				if m == "gemini-2.5-flash" {
					t.Errorf("gemini is eligible without a google or openrouter credential")
				}
			}
		})
	}
}
