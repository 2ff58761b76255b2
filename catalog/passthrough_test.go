package catalog_test

import (
	"testing"

	"github.com/heddle-gw/heddle/catalog"
)

func TestPassThroughOf(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name                         string
		ok                           bool
		provider, upstream, pricedAs string
	}{
		{name: "claude-opus-9-9", ok: true, provider: "anthropic", upstream: "claude-opus-9-9", pricedAs: "claude-opus-4-5"},
		{name: "Claude-Sonnet-5", ok: true, provider: "anthropic", upstream: "claude-sonnet-5", pricedAs: "claude-sonnet-5-5"},
		{name: "claude-3-haiku-20240307", ok: true, provider: "anthropic", upstream: "claude-3-haiku-20240307", pricedAs: "claude-haiku-4-5"},
		{name: "gpt-5-codex", ok: true, provider: "openai", upstream: "gpt-5-codex", pricedAs: "gpt-5"},
		{name: "gpt-5.1-mini", ok: true, provider: "openai", upstream: "gpt-5.1-mini", pricedAs: "gpt-5-mini"},
		{name: "gpt-4.1-nano", ok: true, provider: "openai", upstream: "gpt-4.1-nano", pricedAs: "gpt-5-nano"},
		{name: "o4-mini", ok: true, provider: "openai", upstream: "o4-mini", pricedAs: "gpt-5-mini"},
		{name: "gemini-3-pro-preview", ok: true, provider: "google", upstream: "gemini-3-pro-preview", pricedAs: "gemini-2.5-pro"},
		{name: "models/gemini-3-flash", ok: true, provider: "google", upstream: "gemini-3-flash", pricedAs: "gemini-2.5-flash"},
		{name: "deepseek-reasoner", ok: true, provider: "deepseek", upstream: "deepseek-reasoner", pricedAs: "deepseek-chat"},
		{name: "openai/gpt-6", ok: true, provider: "openai", upstream: "gpt-6", pricedAs: "gpt-6.2-sol"},
		{name: "anthropic/claude-opus-5", ok: true, provider: "anthropic", upstream: "claude-opus-5", pricedAs: "claude-opus-5-5"},
		{name: "gpt-5-mini", ok: false},    // in the catalog: no pass-through
		{name: "mistral-large", ok: false}, // no provider is clear
		{name: "acme/llama-3", ok: false},  // not a catalog provider
		{name: "openai/", ok: false},
		{name: "claude-", ok: false},
		{name: "o", ok: false},
		{name: "omni-1", ok: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pt, ok := cat.PassThroughOf(tt.name)
			if ok != tt.ok {
				t.Fatalf("ok = %v (%+v), want %v", ok, pt, tt.ok)
			}
			if !ok {
				return
			}
			if pt.Provider.Name != tt.provider || pt.Upstream != tt.upstream || pt.PricedAs.ID != tt.pricedAs {
				t.Errorf("got %s %s priced as %s, want %s %s priced as %s", pt.Provider.Name, pt.Upstream, pt.PricedAs.ID,
					tt.provider, tt.upstream, tt.pricedAs)
			}
			m, _ := cat.Lookup(tt.pricedAs)
			b := m.Bindings[0]
			for _, x := range m.Bindings {
				if x.Provider == tt.provider {
					b = x
				}
			}
			if pt.Price != catalog.PriceOf(m, b) || pt.Price.Input == 0 {
				t.Errorf("price %+v, want %s's on %s", pt.Price, tt.pricedAs, tt.provider)
			}
		})
	}
}
