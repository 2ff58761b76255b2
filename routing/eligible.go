package routing

import (
	"slices"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/llm"
)

// Needs are what a request requires of the model that serves it.
type Needs struct {
	Tools    bool
	Vision   bool
	Thinking bool
	JSON     bool
	// ContextTokens is the estimated prompt size plus the requested output.
	ContextTokens int
}

// Policy narrows the models an organisation or key may be routed to.
type Policy struct {
	// Allow, when non-empty, lists the only model ids allowed.
	Allow []string
	// Deny lists model ids never chosen.
	Deny []string
	// UsableProviders is the set of providers the organisation can call (its
	// BYOK credentials plus platform credentials its plan allows). A model is
	// usable when one of its bindings names a provider in the set. A nil map
	// means no restriction; an empty non-nil map means nothing is usable.
	UsableProviders map[string]bool
	// Bindable, when non-nil, narrows the bindings further: one counts only
	// when Bindable(its provider, the model id) (a hosted plan that lists
	// models lets its platform credentials serve those models only).
	Bindable func(provider, model string) bool
	// Ceiling, when non-zero, is the highest tier allowed (under route-all, the
	// requested model's tier).
	Ceiling catalog.Tier
}

// Drop is a model removed by eligibility and why.
type Drop struct {
	Model  string `json:"model"`
	Reason string `json:"reason"`
}

// Drop reasons, a closed vocabulary.
const (
	DropNotAllowed   = "not_allowed"
	DropDenied       = "denied"
	DropNoBinding    = "no_usable_binding"
	DropNotOnPlan    = "not_on_plan"
	DropTools        = "no_tools"
	DropVision       = "no_vision"
	DropThinking     = "no_thinking"
	DropJSON         = "no_json"
	DropContext      = "context_too_small"
	DropAboveCeiling = "above_ceiling"
	DropNotInBundle  = "not_in_bundle"
)

// Eligible returns the ids of the models (in the given order) that satisfy
// need and policy, and a Drop for every other model with the first reason
// that excluded it (checked in the order: allow, deny, ceiling, binding, plan,
// capabilities, context).
func Eligible(models []catalog.Model, need Needs, policy Policy) (eligible []string, drops []Drop) {
	for _, m := range models {
		if r := dropReason(m, need, policy); r != "" {
			drops = append(drops, Drop{Model: m.ID, Reason: r})
			continue
		}
		eligible = append(eligible, m.ID)
	}
	return eligible, drops
}

func dropReason(m catalog.Model, need Needs, p Policy) string {
	switch {
	case len(p.Allow) > 0 && !slices.Contains(p.Allow, m.ID):
		return DropNotAllowed
	case slices.Contains(p.Deny, m.ID):
		return DropDenied
	case p.Ceiling != 0 && m.Tier > p.Ceiling:
		return DropAboveCeiling
	case !usable(m, p.UsableProviders, nil):
		return DropNoBinding
	case p.Bindable != nil && !usable(m, p.UsableProviders, p.Bindable):
		return DropNotOnPlan
	case need.Tools && !m.Capabilities.Tools:
		return DropTools
	case need.Vision && !m.Capabilities.Vision:
		return DropVision
	case need.Thinking && !m.Capabilities.Thinking:
		return DropThinking
	case need.JSON && !m.Capabilities.JSON:
		return DropJSON
	case need.ContextTokens > 0 && m.ContextWindow > 0 && need.ContextTokens > m.ContextWindow:
		return DropContext
	}
	return ""
}

// usable reports whether one of m's bindings names a provider in
// providers (nil: any) that bindable (nil: any) accepts for m.
func usable(m catalog.Model, providers map[string]bool, bindable func(provider, model string) bool) bool {
	for _, b := range m.Bindings {
		if (providers == nil || providers[b.Provider]) && (bindable == nil || bindable(b.Provider, m.ID)) {
			return true
		}
	}
	return false
}

// NeedsOf derives a request's needs from its shape: tools declared or tool
// parts present, images, thinking enabled, JSON output, and the context it
// needs (prompt bytes / 4 as an estimate of tokens, plus MaxTokens).
func NeedsOf(req *llm.Request) Needs {
	if req == nil {
		return Needs{}
	}
	n := Needs{
		Tools:    len(req.Tools) > 0,
		Thinking: req.Thinking != nil && req.Thinking.Enabled,
		JSON:     req.ResponseFormat != nil,
	}
	bytes := 0
	for _, p := range req.System {
		bytes += len(p.Text)
	}
	for _, t := range req.Tools {
		bytes += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	for _, m := range req.Messages {
		for _, p := range m.Content {
			bytes += partBytes(p, &n)
		}
	}
	n.ContextTokens = bytes/4 + req.MaxTokens
	return n
}

func partBytes(p llm.Part, n *Needs) int {
	switch p.Type {
	case llm.PartImage:
		n.Vision = true
		return 4 * llm.MediaTokens(p)
	case llm.PartDocument:
		return 4 * llm.MediaTokens(p) // a PDF by its pages
	case llm.PartToolCall, llm.PartToolResult:
		n.Tools = true
	}
	b := len(p.Text) + len(p.Arguments) + len(p.Data)/4
	for _, r := range p.Result {
		b += partBytes(r, n)
	}
	return b
}
