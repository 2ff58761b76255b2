package gateway

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/routing"
)

func TestModelsFor(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	settings := routing.OrgSettings{
		Deny: []string{"claude-opus-4-5"},
		Aliases: map[string]string{
			"claude-opus-9-9": "claude-haiku-4-5-20251001", // a catalog alias of a listed model
			"fast":            "auto",
			"gpt-5":           "auto",             // shadows the catalog's gpt-5
			"old-opus":        "claude-opus-4-5",  // denied: not listed
			"gem":             "gemini-2.5-flash", // no google credential: not listed
		},
	}
	s := testService(t, Config{}, Deps{Catalog: cat,
		Routers: fakeRouters{settings: settings, err: fmt.Errorf("%w: %w", routing.ErrUnavailable, routing.ErrNoBundle)}},
		WithProviders(fixedProviders{"anthropic": true, "openai": true}))
	models, err := s.ModelsFor(context.Background(), Caller{OrgID: "org"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range models {
		ids = append(ids, m.ID)
	}
	want := []string{"claude-opus-5-5", "claude-sonnet-5-5", "gpt-6.1-sol", "gpt-6.2-sol", "claude-sonnet-4-5", "claude-haiku-4-5", "gpt-5-mini", "gpt-5-nano", "gpt-4.1", "gpt-4.1-mini",
		"claude-opus-9-9", "fast", "gpt-5"}
	if !slices.Equal(ids, want) {
		t.Fatalf("models %v, want %v", ids, want)
	}
	if alias := models[len(models)-3]; alias.ContextWindow != 200000 || len(alias.Bindings) == 0 {
		t.Errorf("the alias entry does not carry its target's properties: %+v", alias)
	}

	down := testService(t, Config{}, Deps{Catalog: cat, Routers: fakeRouters{err: fmt.Errorf("%w: %w: timeout", routing.ErrUnavailable, routing.ErrSettingsUnavailable)}})
	if _, err := down.ModelsFor(context.Background(), Caller{OrgID: "org"}); !errors.Is(err, routing.ErrSettingsUnavailable) {
		t.Fatalf("unreadable settings: err %v, want it to fail closed", err)
	}
}

// TestListModelsFollowsThePlan: on a hosted plan that lists models, the
// model list (chat and embedding models, and aliases of them) holds what
// routing would bind: the plan's models on its platform providers, every
// model of a provider the organisation has its own credential for, and
// nothing else of the providers the plan names.
func TestListModelsFollowsThePlan(t *testing.T) {
	plan := &credits.Plan{ID: "narrow", Providers: []string{"openai", "openrouter"}, Models: []string{"gpt-5-nano", "text-embedding-3-small"}}
	settings := routing.OrgSettings{Aliases: map[string]string{"mini": "gpt-5-mini", "nano": "gpt-5-nano", "big": "text-embedding-3-large"}}
	s := testService(t, Config{}, Deps{Routers: fakeRouters{settings: settings, err: fmt.Errorf("%w: %w", routing.ErrUnavailable, routing.ErrNoBundle)}},
		WithProviders(fixedProviders{"anthropic": true, "openai": true, "openrouter": true}),
		WithCredits(&fakeCredits{funding: Funding{Plan: plan, BYOK: map[string]bool{"anthropic": true}}}))
	entries, err := s.ListModels(context.Background(), Caller{OrgID: "org"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range entries {
		ids = append(ids, e.Model.ID)
	}
	want := []string{"claude-opus-5-5", "claude-sonnet-5-5", "claude-opus-4-5", "claude-sonnet-4-5", "claude-haiku-4-5", "gpt-5-nano", "nano", "text-embedding-3-small"}
	if !slices.Equal(ids, want) {
		t.Fatalf("models %v\nwant %v", ids, want)
	}
	// Without a plan the same organisation lists every reachable model.
	open := testService(t, Config{}, Deps{Routers: fakeRouters{settings: settings, err: fmt.Errorf("%w: %w", routing.ErrUnavailable, routing.ErrNoBundle)}},
		WithProviders(fixedProviders{"anthropic": true, "openai": true, "openrouter": true}),
		WithCredits(&fakeCredits{funding: Funding{BYOK: map[string]bool{"anthropic": true}}}))
	all, err := open.ListModels(context.Background(), Caller{OrgID: "org"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(all, func(e ModelEntry) bool { return e.Model.ID == "mini" }) || len(all) <= len(entries) {
		t.Fatalf("without a plan: %d entries, want more than %d and the alias mini", len(all), len(entries))
	}
}

// TestListModelsDropsAProviderOffThePlan: a plan that names openai alone
// lists no anthropic model, though a platform anthropic credential exists
// (it serves another plan) and the organisation has none of its own.
func TestListModelsDropsAProviderOffThePlan(t *testing.T) {
	s := testService(t, Config{}, Deps{Routers: fakeRouters{err: fmt.Errorf("%w: %w", routing.ErrUnavailable, routing.ErrNoBundle)}},
		WithProviders(fixedProviders{"anthropic": true, "openai": true}),
		WithCredits(&fakeCredits{funding: Funding{Plan: &credits.Plan{ID: "openai-only", Providers: []string{"openai"}}}}))
	entries, err := s.ListModels(context.Background(), Caller{OrgID: "org"})
	if err != nil {
		t.Fatal(err)
	}
	openai := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Model.ID, "claude-") {
			t.Errorf("listed %s off the plan", e.Model.ID)
		}
		if strings.HasPrefix(e.Model.ID, "gpt-") {
			openai++
		}
	}
	if openai == 0 {
		t.Fatalf("no openai model listed: %d entries", len(entries))
	}
}
