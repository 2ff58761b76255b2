package gateway

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/routing"
)

// fakeRouters is a RouterSource with fixed settings, router and error.
type fakeRouters struct {
	router   Router
	settings routing.OrgSettings
	err      error
}

func (f fakeRouters) For(context.Context, string) (Router, routing.OrgSettings, error) {
	return f.router, f.settings, f.err
}

func TestResolveOrgAliases(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	settings := routing.OrgSettings{
		Aliases: map[string]string{"claude-opus-9-9": "claude-opus-4-5", "gpt-5": "auto", "stale": "gone-model", "denied": "gpt-5-nano"},
		Deny:    []string{"gpt-5-nano"},
	}
	noPass := settings
	noPass.PassthroughOff = true
	router := &fakeRouter{d: routing.Decision{Model: "gpt-5-mini", Alpha: 0.6, BundleID: "default", BundleRevision: "r1"}}
	settingsDown := fmt.Errorf("%w: %w: connection refused", routing.ErrUnavailable, routing.ErrSettingsUnavailable)
	routerDown := fmt.Errorf("%w: %w", routing.ErrUnavailable, routing.ErrNoBundle)
	for _, tt := range []struct {
		name                      string
		src                       fakeRouters
		model                     string
		wantModel, wantRoute, pol string
		wantBase                  string
		wantErr                   error
	}{
		{name: "alias to a catalog model", src: fakeRouters{router, settings, nil}, model: "claude-opus-9-9",
			wantModel: "claude-opus-4-5", wantRoute: RouteExplicit, pol: "alias", wantBase: "claude-opus-4-5"},
		{name: "alias matches case-insensitively", src: fakeRouters{router, settings, nil}, model: "Claude-Opus-9-9",
			wantModel: "claude-opus-4-5", wantRoute: RouteExplicit, pol: "alias", wantBase: "claude-opus-4-5"},
		{name: "alias to auto routes (a catalog name shadowed)", src: fakeRouters{router, settings, nil}, model: "gpt-5",
			wantModel: "gpt-5-mini", wantRoute: RouteRouted, pol: "auto", wantBase: "claude-sonnet-4-5"},
		{name: "unaliased name is explicit", src: fakeRouters{router, settings, nil}, model: "gpt-5-mini",
			wantModel: "gpt-5-mini", wantRoute: RouteExplicit, pol: "explicit", wantBase: "gpt-5-mini"},
		{name: "alias to a model the catalog dropped", src: fakeRouters{router, settings, nil}, model: "stale", wantErr: ErrUnknownModel},
		{name: "deny list applies to the alias target", src: fakeRouters{router, settings, nil}, model: "denied", wantErr: ErrModelNotAllowed},
		{name: "unknown without alias", src: fakeRouters{router, noPass, nil}, model: "claude-opus-9", wantErr: ErrUnknownModel},
		{name: "unknown without alias or a clear provider", src: fakeRouters{router, settings, nil}, model: "llama-9", wantErr: ErrUnknownModel},
		{name: "unaliased unknown name of a clear provider passes through", src: fakeRouters{router, settings, nil}, model: "claude-opus-9",
			wantModel: "claude-opus-9", wantRoute: RouteExplicit, pol: "passthrough", wantBase: "claude-opus-9"},
		{name: "settings unreadable: explicit fails closed", src: fakeRouters{nil, routing.OrgSettings{}, settingsDown}, model: "gpt-5-mini",
			wantErr: routing.ErrSettingsUnavailable},
		{name: "router down, settings known: explicit alias works", src: fakeRouters{nil, settings, routerDown}, model: "claude-opus-9-9",
			wantModel: "claude-opus-4-5", wantRoute: RouteExplicit, pol: "alias", wantBase: "claude-opus-4-5"},
		{name: "router down: alias to auto fails closed", src: fakeRouters{nil, settings, routerDown}, model: "gpt-5",
			wantErr: routing.ErrNoBundle},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := testService(t, Config{DefaultAlpha: 0.6, BaselineModel: "claude-sonnet-4-5"}, Deps{Catalog: cat, Routers: tt.src},
				WithProviders(fixedProviders{"openai": true, "anthropic": true}))
			res, err := s.resolve(context.Background(), Caller{}, userReq(tt.model, "hi"), routingFor(context.Background(), tt.src, "org"))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if res.model.ID != tt.wantModel || res.route != tt.wantRoute || res.provenance.PolicyID != tt.pol || res.baseline.ID != tt.wantBase {
				t.Errorf("got model %s route %s policy %s baseline %s", res.model.ID, res.route, res.provenance.PolicyID, res.baseline.ID)
			}
		})
	}
}
