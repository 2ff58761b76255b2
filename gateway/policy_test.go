package gateway

import (
	"context"
	"testing"

	"github.com/heddle-gw/heddle/catalog"
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
