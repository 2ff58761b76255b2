package gateway

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
)

// orgTenants is a TenantModels with fixed models per organisation, or err.
type orgTenants struct {
	by  map[string][]TenantModel
	err error
}

func (o orgTenants) OrgModels(_ context.Context, orgID string) ([]TenantModel, error) {
	return o.by[orgID], o.err
}

func acmeLlama() TenantModel {
	return TenantModel{
		Model: catalog.Model{ID: "acme-llama", ContextWindow: 8192, MaxOutput: 1024,
			Price:    catalog.Price{Input: 2, Output: 4},
			Bindings: []catalog.Binding{{Provider: "acme", Upstream: "llama-up"}}},
		Target: dispatch.Target{Model: "acme-llama", Provider: "acme", Upstream: "llama-up", Format: llm.FormatChat,
			BaseURL: "https://llm.acme.example/v1"},
	}
}

func TestResolveTenantModels(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	tenants := orgTenants{by: map[string][]TenantModel{"org-a": {acmeLlama()}}}
	settings := routing.OrgSettings{Aliases: map[string]string{"llama": "acme-llama"}}
	router := &fakeRouter{d: routing.Decision{Model: "gpt-5-mini", Alpha: 0.6, BundleID: "default", BundleRevision: "r1"}}
	for _, tt := range []struct {
		name, org, model, policy string
		src                      fakeRouters
		tenants                  orgTenants
		keyPolicy                string
		wantErr                  error
	}{
		{name: "explicit", org: "org-a", model: "acme-llama", policy: "explicit", src: fakeRouters{router, settings, nil}, tenants: tenants},
		{name: "case and models/ prefix", org: "org-a", model: "models/Acme-Llama", policy: "explicit", src: fakeRouters{router, settings, nil}, tenants: tenants},
		{name: "alias of a tenant model", org: "org-a", model: "llama", policy: "alias", src: fakeRouters{router, settings, nil}, tenants: tenants},
		{name: "route-all key serves it as asked", org: "org-a", model: "acme-llama", policy: "explicit", keyPolicy: "route-all",
			src: fakeRouters{router, settings, nil}, tenants: tenants},
		{name: "another organisation does not know it", org: "org-b", model: "acme-llama", src: fakeRouters{router, settings, nil},
			tenants: tenants, wantErr: ErrUnknownModel},
		{name: "deny list applies", org: "org-a", model: "acme-llama",
			src: fakeRouters{router, routing.OrgSettings{Deny: []string{"acme-llama"}}, nil}, tenants: tenants, wantErr: ErrModelNotAllowed},
		{name: "allow list applies", org: "org-a", model: "acme-llama",
			src: fakeRouters{router, routing.OrgSettings{Allow: []string{"gpt-5-mini"}}, nil}, tenants: tenants, wantErr: ErrModelNotAllowed},
		{name: "unreadable tenant models fail closed", org: "org-a", model: "acme-llama", src: fakeRouters{router, settings, nil},
			tenants: orgTenants{err: errors.New("connection refused")}, wantErr: routing.ErrSettingsUnavailable},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := testService(t, Config{DefaultAlpha: 0.6, BaselineModel: "claude-sonnet-4-5"}, Deps{Catalog: cat, Routers: tt.src},
				WithProviders(fixedProviders{"openai": true}), WithTenantModels(tt.tenants))
			ctx := context.Background()
			res, err := s.resolve(ctx, Caller{OrgID: tt.org, Policy: tt.keyPolicy}, userReq(tt.model, "hi"), routingFor(ctx, tt.src, tt.org))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			want := acmeLlama()
			want.Target.Price = want.Model.Price // the plan prices its target
			if res.model.ID != "acme-llama" || res.baseline.ID != "acme-llama" || res.route != RouteExplicit ||
				res.provenance.PolicyID != tt.policy || len(res.plan.Targets) != 1 || res.plan.Targets[0] != want.Target {
				t.Fatalf("resolution: model %s baseline %s route %s policy %s plan %+v", res.model.ID, res.baseline.ID,
					res.route, res.provenance.PolicyID, res.plan.Targets)
			}
		})
	}

	// "auto" never chooses a tenant model: the router sees catalog models only.
	src := fakeRouters{router, settings, nil}
	s := testService(t, Config{DefaultAlpha: 0.6, BaselineModel: "claude-sonnet-4-5"}, Deps{Catalog: cat, Routers: src},
		WithTenantModels(tenants))
	ctx := context.Background()
	if _, err := s.resolve(ctx, Caller{OrgID: "org-a"}, userReq("auto", "hi"), routingFor(ctx, src, "org-a")); err != nil {
		t.Fatal(err)
	}
	for _, m := range router.got.Eligible {
		if m == "acme-llama" {
			t.Fatalf("the router was offered the tenant model")
		}
	}
	if len(router.got.Eligible) == 0 {
		t.Fatalf("the router saw no eligible model")
	}
}

func TestAccountTenantPrice(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	src := fakeRouters{settings: routing.OrgSettings{}}
	s := testService(t, Config{}, Deps{Catalog: cat, Routers: src},
		WithTenantModels(orgTenants{by: map[string][]TenantModel{"org-a": {acmeLlama()}}}))
	ctx := context.Background()
	res, err := s.resolve(ctx, Caller{OrgID: "org-a"}, userReq("acme-llama", "hi"), routingFor(ctx, src, "org-a"))
	if err != nil {
		t.Fatal(err)
	}
	var rec analytics.Request
	// The target as the plan carries it, as dispatch reports it served.
	served := &dispatch.Result{Served: res.plan.Targets[0], Usage: llm.Usage{Input: 1000, Output: 500}}
	accountStage{pricer: Pricer{Catalog: cat}}.finish(context.Background(), &pass{rec: &rec, result: served, res: res}, nil)
	// 1000 * $2/M + 500 * $4/M = $0.004 = 4000 micro-dollars; baseline is itself.
	if rec.CostMicros != 4000 || rec.BaselineMicros != 4000 || rec.SavingsMicros != 0 || rec.ServedModel != "acme-llama" || rec.Provider != "acme" {
		t.Fatalf("record: cost %d baseline %d savings %d model %s provider %s", rec.CostMicros, rec.BaselineMicros,
			rec.SavingsMicros, rec.ServedModel, rec.Provider)
	}
}

func TestModelsForTenant(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	tenants := orgTenants{by: map[string][]TenantModel{"org-a": {acmeLlama()}}}
	settings := routing.OrgSettings{Aliases: map[string]string{"llama": "acme-llama"}}
	s := testService(t, Config{}, Deps{Catalog: cat, Routers: fakeRouters{settings: settings}},
		WithProviders(fixedProviders{}), WithTenantModels(tenants))
	ids := func(org string) []string {
		ms, err := s.ModelsFor(context.Background(), Caller{OrgID: org})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range ms {
			out = append(out, m.ID)
		}
		return out
	}
	if got := ids("org-a"); !slices.Equal(got, []string{"acme-llama", "llama"}) {
		t.Fatalf("org-a lists %v", got)
	}
	if got := ids("org-b"); len(got) != 0 {
		t.Fatalf("org-b lists %v", got)
	}
	down := testService(t, Config{}, Deps{Catalog: cat, Routers: fakeRouters{}}, WithTenantModels(orgTenants{err: fmt.Errorf("timeout")}))
	if _, err := down.ModelsFor(context.Background(), Caller{OrgID: "org-a"}); !errors.Is(err, routing.ErrSettingsUnavailable) {
		t.Fatalf("unreadable tenant models: %v, want fail closed", err)
	}
}
