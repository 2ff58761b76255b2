package routing

import (
	"slices"
	"testing"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/llm"
)

func testModels() []catalog.Model {
	all := catalog.Capabilities{Tools: true, Vision: true, Thinking: true, JSON: true}
	return []catalog.Model{
		{ID: "big", Tier: catalog.TierFrontier, ContextWindow: 200000, Capabilities: all,
			Bindings: []catalog.Binding{{Provider: "anthropic", Upstream: "big-1"}}},
		{ID: "mid", Tier: catalog.TierLarge, ContextWindow: 128000,
			Capabilities: catalog.Capabilities{Tools: true, JSON: true},
			Bindings:     []catalog.Binding{{Provider: "openai", Upstream: "mid-1"}, {Provider: "openrouter", Upstream: "x/mid"}}},
		{ID: "small", Tier: catalog.TierSmall, ContextWindow: 16000,
			Capabilities: catalog.Capabilities{},
			Bindings:     []catalog.Binding{{Provider: "deepseek", Upstream: "small-1"}}},
	}
}

func TestEligible(t *testing.T) {
	for _, tc := range []struct {
		name     string
		need     Needs
		policy   Policy
		eligible []string
		drops    []Drop
	}{
		{"everything", Needs{}, Policy{}, []string{"big", "mid", "small"}, nil},
		{"allow list", Needs{}, Policy{Allow: []string{"mid"}}, []string{"mid"},
			[]Drop{{"big", DropNotAllowed}, {"small", DropNotAllowed}}},
		{"deny list", Needs{}, Policy{Deny: []string{"big"}}, []string{"mid", "small"}, []Drop{{"big", DropDenied}}},
		{"route-all ceiling", Needs{}, Policy{Ceiling: catalog.TierLarge}, []string{"mid", "small"}, []Drop{{"big", DropAboveCeiling}}},
		{"usable providers", Needs{}, Policy{UsableProviders: map[string]bool{"openrouter": true}}, []string{"mid"},
			[]Drop{{"big", DropNoBinding}, {"small", DropNoBinding}}},
		{"no provider usable", Needs{}, Policy{UsableProviders: map[string]bool{}}, nil,
			[]Drop{{"big", DropNoBinding}, {"mid", DropNoBinding}, {"small", DropNoBinding}}},
		{"a plan that lists models", Needs{}, Policy{UsableProviders: map[string]bool{"anthropic": true, "openai": true},
			Bindable: func(provider, model string) bool { return model == "mid" && provider == "openai" }}, []string{"mid"},
			[]Drop{{"big", DropNotOnPlan}, {"small", DropNoBinding}}},
		{"tools", Needs{Tools: true}, Policy{}, []string{"big", "mid"}, []Drop{{"small", DropTools}}},
		{"vision", Needs{Vision: true}, Policy{}, []string{"big"}, []Drop{{"mid", DropVision}, {"small", DropVision}}},
		{"thinking", Needs{Thinking: true}, Policy{}, []string{"big"}, []Drop{{"mid", DropThinking}, {"small", DropThinking}}},
		{"json", Needs{JSON: true}, Policy{}, []string{"big", "mid"}, []Drop{{"small", DropJSON}}},
		{"context", Needs{ContextTokens: 150000}, Policy{}, []string{"big"}, []Drop{{"mid", DropContext}, {"small", DropContext}}},
		{"first reason wins", Needs{Tools: true}, Policy{Deny: []string{"small"}}, []string{"big", "mid"}, []Drop{{"small", DropDenied}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eligible, drops := Eligible(testModels(), tc.need, tc.policy)
			if !slices.Equal(eligible, tc.eligible) || !slices.Equal(drops, tc.drops) {
				t.Fatalf("eligible %v drops %v, want %v %v", eligible, drops, tc.eligible, tc.drops)
			}
		})
	}
}

func TestNeedsOf(t *testing.T) {
	req := &llm.Request{
		System:    []llm.Part{{Type: llm.PartText, Text: string(make([]byte, 400))}},
		Tools:     []llm.Tool{{Name: "bash", Description: "run", Parameters: []byte(`{}`)}},
		Thinking:  &llm.Thinking{Enabled: true},
		MaxTokens: 1000,
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: string(make([]byte, 800))}, {Type: llm.PartImage, URL: "https://x/y.png"}}},
		},
		ResponseFormat: &llm.ResponseFormat{Type: "json_object"},
	}
	n := NeedsOf(req)
	// (400 + 4+3+2 + 800 + 6400) / 4 + 1000 = 2902
	want := Needs{Tools: true, Vision: true, Thinking: true, JSON: true, ContextTokens: 2902}
	if n != want {
		t.Fatalf("NeedsOf = %+v, want %+v", n, want)
	}
	if n := NeedsOf(&llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: "hi"}}}}}); n != (Needs{}) {
		t.Fatalf("plain text needs %+v", n)
	}
	if n := NeedsOf(nil); n != (Needs{}) {
		t.Fatalf("nil request needs %+v", n)
	}
}
