package gateway

import (
	"context"
	"errors"
	"testing"

	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
)

// TestPolicyCacheModel: the cache key's model names what policy decided:
// the same explicit model under any of its names, a different one for
// every other decision.
func TestPolicyCacheModel(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	sonnet, err := cat.Lookup("claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	s := policyStage{routers: StaticRouters{}, catalog: cat, plans: planner{catalog: cat}, tenant: noTenantModels{}, baseline: sonnet}
	settings := routing.OrgSettings{Aliases: map[string]string{"fast": "gpt-5-mini", "smart": "auto"}}
	for _, tt := range []struct {
		name, model, keyPolicy, want string
	}{
		{name: "explicit", model: "gpt-5-mini", want: "gpt-5-mini"},
		{name: "an alias of the same model shares its answers", model: "fast", want: "gpt-5-mini"},
		{name: "a catalog alias of the same model", model: "claude-sonnet-4-5-20250929", want: "claude-sonnet-4-5"},
		{name: "auto", model: "auto", want: "auto:claude-sonnet-4-5:0"},
		{name: "an alias of auto", model: "smart", want: "auto:claude-sonnet-4-5:0"},
		{name: "route-all names its ceiling", model: "claude-haiku-4-5", keyPolicy: "route-all", want: "route-all:claude-haiku-4-5:2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, err := s.decide(context.Background(), Caller{OrgID: "org", Policy: tt.keyPolicy}, userReq(tt.model, "hi"), orgRouting{settings: settings})
			if err != nil {
				t.Fatal(err)
			}
			if got := v.cacheModel(); got != tt.want {
				t.Errorf("cache model %q, want %q", got, tt.want)
			}
		})
	}
}

// TestPolicyPassThrough: a name the catalog lacks whose provider is clear
// runs as sent on that provider, as a single-target plan priced by the
// family's nearest entry and noted as an estimate; the deny list applies to
// the name as sent, and an organisation with pass-through off gets the
// unknown-model error as before.
func TestPolicyPassThrough(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	opus, _ := cat.Lookup("claude-opus-4-5")
	s := policyStage{routers: StaticRouters{}, catalog: cat, plans: planner{catalog: cat, maxAttempts: 3}, tenant: noTenantModels{}, baseline: opus}
	for _, tt := range []struct {
		name, model, keyPolicy string
		settings               routing.OrgSettings
		wantErr                error
		wantTarget             dispatch.Target
		wantSummary            string
	}{
		{name: "claude code's default", model: "claude-opus-9-9",
			wantTarget: dispatch.Target{Model: "claude-opus-9-9", Provider: "anthropic", Upstream: "claude-opus-9-9",
				Format: llm.FormatAnthropic, BaseURL: "https://api.anthropic.com", Price: opus.Price},
			wantSummary: "explicit:claude-opus-9-9 price:estimated:claude-opus-4-5"},
		{name: "denied as sent", model: "claude-opus-9-9", settings: routing.OrgSettings{Deny: []string{"claude-opus-9-9"}}, wantErr: ErrModelNotAllowed},
		{name: "denied as the catalog model it is priced as", model: "claude-opus-9-9", settings: routing.OrgSettings{Deny: []string{"claude-opus-4-5"}}, wantErr: ErrModelNotAllowed},
		{name: "not on the allow list", model: "claude-opus-9-9", settings: routing.OrgSettings{Allow: []string{"gpt-5-mini"}}, wantErr: ErrModelNotAllowed},
		{name: "pass-through off", model: "claude-opus-9-9", settings: routing.OrgSettings{PassthroughOff: true}, wantErr: ErrUnknownModel},
		{name: "no clear provider", model: "mistral-large", wantErr: ErrUnknownModel},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, err := s.decide(context.Background(), Caller{OrgID: "org"}, userReq(tt.model, "hi"), orgRouting{settings: tt.settings})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil || v.explicit == nil {
				t.Fatalf("verdict %+v, err %v", v, err)
			}
			r := v.explicit
			if len(r.plan.Targets) != 1 || r.plan.Targets[0] != tt.wantTarget || r.plan.MaxAttempts != 3 {
				t.Errorf("plan %+v, want the one target %+v", r.plan, tt.wantTarget)
			}
			if got := r.summary(); got != tt.wantSummary || r.route != RouteExplicit || r.provenance.PolicyID != "passthrough" {
				t.Errorf("summary %q route %q policy %q, want %q", got, r.route, r.provenance.PolicyID, tt.wantSummary)
			}
			if got := (Pricer{Catalog: cat}).CostMicros(r.plan.Targets[0], llm.Usage{Input: 1000, Output: 100}); got != int64(billing.Cost(llm.Usage{Input: 1000, Output: 100}, opus.Price)) || got == 0 {
				t.Errorf("priced at %d micros, want opus 4.5's price", got)
			}
		})
	}
}

// TestPolicyPassThroughCannotBypassDeny: a denied catalog model named by
// its upstream id on a provider ("anthropic/<dated id>", "openrouter/...")
// is that catalog model, so the deny list holds; a route-all key's
// pass-through name is the router's baseline and ceiling, not an explicit
// model that skips the router.
func TestPolicyPassThroughCannotBypassDeny(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	opus, err := cat.Lookup("claude-opus-4-5")
	if err != nil {
		t.Fatal(err)
	}
	s := policyStage{routers: StaticRouters{}, catalog: cat, plans: planner{catalog: cat, maxAttempts: 3}, tenant: noTenantModels{}, baseline: opus}
	deny := routing.OrgSettings{Deny: []string{opus.ID}}
	for _, b := range opus.Bindings {
		name := b.Provider + "/" + b.Upstream
		_, err := s.decide(context.Background(), Caller{OrgID: "org"}, userReq(name, "hi"), orgRouting{settings: deny})
		if !errors.Is(err, ErrModelNotAllowed) {
			t.Errorf("%s with %s denied: err %v, want ErrModelNotAllowed", name, opus.ID, err)
		}
		v, err := s.decide(context.Background(), Caller{OrgID: "org"}, userReq(name, "hi"), orgRouting{})
		if err != nil || v.explicit == nil || v.explicit.model.ID != opus.ID {
			t.Errorf("%s: verdict %+v err %v, want the catalog model %s", name, v, err, opus.ID)
		}
	}
	v, err := s.decide(context.Background(), Caller{OrgID: "org", Policy: "route-all"}, userReq("claude-opus-9-9", "hi"), orgRouting{})
	if err != nil || v.explicit != nil || v.policy != "route-all" || v.baseline.ID != "claude-opus-9-9" || v.ceiling != opus.Tier {
		t.Errorf("route-all pass-through: verdict %+v err %v, want the router with baseline claude-opus-9-9 and ceiling %d", v, err, opus.Tier)
	}
}
