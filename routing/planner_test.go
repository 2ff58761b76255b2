package routing_test

import (
	"math"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/routing"
)

// Prices in USD per million tokens (input, output, cache read, cache write),
// as in the default catalog.
var (
	opus   = routing.PlanModel{ID: "opus", Tier: catalog.TierFrontier, Price: catalog.Price{Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25}}
	sonnet = routing.PlanModel{ID: "sonnet", Tier: catalog.TierLarge, Price: catalog.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}}
	haiku  = routing.PlanModel{ID: "haiku", Tier: catalog.TierMedium, Price: catalog.Price{Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25}}
	// An OpenAI-style model: no cache-write charge, so the planner prices the
	// first turn's prompt at the input price.
	mini = routing.PlanModel{ID: "mini", Tier: catalog.TierMedium, Price: catalog.Price{Input: 0.25, Output: 2, CacheRead: 0.025}}
	// Sonnet's price with a dollar off output: a switch that saves little.
	sonnetAlt = routing.PlanModel{ID: "sonnet-alt", Tier: catalog.TierLarge, Price: catalog.Price{Input: 3, Output: 14, CacheRead: 0.3, CacheWrite: 3.75}}
)

func TestPlanHandComputed(t *testing.T) {
	tests := []struct {
		name       string
		in         routing.PlanInput
		action     routing.PlanAction
		model      string
		reason     string
		stay, swi  float64
		required   float64
		turns, out int
	}{
		{
			// stay/turn = 100000*0.3e-6 + 2000*3e-6 + 1000*15e-6 = 0.03 + 0.006 + 0.015 = 0.051; x2 = 0.102
			// switch = first 100000*1.25e-6 + 2000*1e-6 + 1000*5e-6 = 0.125 + 0.002 + 0.005 = 0.132
			//        + 1 x (100000*0.1e-6 + 0.002 + 0.005) = 0.017 -> 0.149
			// saving = -0.047: the warm Sonnet cache beats Haiku's full-price first turn.
			name: "warm cache, 2 turns left: stay",
			in: routing.PlanInput{Pinned: sonnet, Candidate: haiku, ContextTokens: 100000, NewTokens: 2000,
				OutputTokens: 1000, RemainingTurns: 2},
			action: routing.PlanStay, model: "sonnet", reason: routing.PlanSavingBelowMargin,
			stay: 0.102, swi: 0.149, required: 0.0102, turns: 2, out: 1000,
		},
		{
			// stay = 5 x 0.051 = 0.255
			// switch = 0.132 + 4 x 0.017 = 0.200; saving 0.055 > 10% x 0.255 = 0.0255
			name: "warm cache, 5 turns left: switch",
			in: routing.PlanInput{Pinned: sonnet, Candidate: haiku, ContextTokens: 100000, NewTokens: 2000,
				OutputTokens: 1000, RemainingTurns: 5},
			action: routing.PlanSwitch, model: "haiku", reason: routing.PlanSavingAboveMargin,
			stay: 0.255, swi: 0.200, required: 0.0255, turns: 5, out: 1000,
		},
		{
			// stay = 0.102 + 100000 x (3.75 - 0.3)e-6 = 0.102 + 0.345 = 0.447 (cache expired: rewrite once)
			// switch = 0.149 as above; saving 0.298 > 0.0447
			name: "cold pinned cache, 2 turns left: switch",
			in: routing.PlanInput{Pinned: sonnet, Candidate: haiku, ContextTokens: 100000, NewTokens: 2000,
				OutputTokens: 1000, RemainingTurns: 2, PinnedCacheCold: true},
			action: routing.PlanSwitch, model: "haiku", reason: routing.PlanSavingAboveMargin,
			stay: 0.447, swi: 0.149, required: 0.0447, turns: 2, out: 1000,
		},
		{
			// Handover shrinks the candidate's context to 20000 tokens for $0.03.
			// switch = first 20000*1.25e-6 + 0.002 + 0.005 = 0.032
			//        + 4 x (20000*0.1e-6 + 0.007) = 4 x 0.009 = 0.036
			//        + 0.03 handover = 0.098; stay = 0.255
			name: "handover",
			in: routing.PlanInput{Pinned: sonnet, Candidate: haiku, ContextTokens: 100000, NewTokens: 2000,
				OutputTokens: 1000, RemainingTurns: 5, HandoverCost: 0.03, HandoverContextTokens: 20000},
			action: routing.PlanSwitch, model: "haiku", reason: routing.PlanSavingAboveMargin,
			stay: 0.255, swi: 0.098, required: 0.0255, turns: 5, out: 1000,
		},
		{
			// stay = 3 x 0.051 = 0.153
			// switch = first 100000*0.25e-6 (no write price: input) + 2000*0.25e-6 + 1000*2e-6
			//        = 0.025 + 0.0005 + 0.002 = 0.0275
			//        + 2 x (100000*0.025e-6 + 0.0005 + 0.002) = 2 x 0.005 = 0.01 -> 0.0375
			name: "candidate without a cache-write price",
			in: routing.PlanInput{Pinned: sonnet, Candidate: mini, ContextTokens: 100000, NewTokens: 2000,
				OutputTokens: 1000, RemainingTurns: 3},
			action: routing.PlanSwitch, model: "mini", reason: routing.PlanSavingAboveMargin,
			stay: 0.153, swi: 0.0375, required: 0.0153, turns: 3, out: 1000,
		},
		{
			// Defaults: 5 turns, 800 output tokens.
			// stay (haiku) = 5 x (50000*0.1e-6 + 1000*1e-6 + 800*5e-6) = 5 x (0.005 + 0.001 + 0.004) = 0.05
			// switch (opus) = 50000*6.25e-6 + 1000*5e-6 + 800*25e-6 = 0.3125 + 0.005 + 0.02 = 0.3375
			//        + 4 x (50000*0.5e-6 + 0.005 + 0.02) = 4 x 0.05 = 0.2 -> 0.5375
			// Dearer, but a higher tier always switches.
			name:   "higher tier candidate always switches",
			in:     routing.PlanInput{Pinned: haiku, Candidate: opus, ContextTokens: 50000, NewTokens: 1000},
			action: routing.PlanSwitch, model: "opus", reason: routing.PlanHigherTier,
			stay: 0.05, swi: 0.5375, required: 0.005, turns: 5, out: 800,
		},
		{
			// stay = 5 x (1000*3e-6 + 1000*15e-6) = 5 x 0.018 = 0.09
			// switch = 5 x (1000*3e-6 + 1000*14e-6) = 5 x 0.017 = 0.085 (no context to write)
			// NeedsHigherTier forces it although the tiers are equal.
			name: "needs higher tier flag",
			in: routing.PlanInput{Pinned: sonnet, Candidate: sonnetAlt, NewTokens: 1000, OutputTokens: 1000,
				NeedsHigherTier: true},
			action: routing.PlanSwitch, model: "sonnet-alt", reason: routing.PlanHigherTier,
			stay: 0.09, swi: 0.085, required: 0.009, turns: 5, out: 1000,
		},
		{
			// saving 0.005 < 10% x 0.09 = 0.009
			name:   "saving below margin",
			in:     routing.PlanInput{Pinned: sonnet, Candidate: sonnetAlt, NewTokens: 1000, OutputTokens: 1000},
			action: routing.PlanStay, model: "sonnet", reason: routing.PlanSavingBelowMargin,
			stay: 0.09, swi: 0.085, required: 0.009, turns: 5, out: 1000,
		},
		{
			// A negative margin means 0: any saving switches (0.005 > 0).
			name: "zero margin",
			in: routing.PlanInput{Pinned: sonnet, Candidate: sonnetAlt, NewTokens: 1000, OutputTokens: 1000,
				Margin: -1},
			action: routing.PlanSwitch, model: "sonnet-alt", reason: routing.PlanSavingAboveMargin,
			stay: 0.09, swi: 0.085, required: 0, turns: 5, out: 1000,
		},
		{
			// A 2% margin: 0.005 > 0.0018.
			name: "custom margin",
			in: routing.PlanInput{Pinned: sonnet, Candidate: sonnetAlt, NewTokens: 1000, OutputTokens: 1000,
				Margin: 0.02},
			action: routing.PlanSwitch, model: "sonnet-alt", reason: routing.PlanSavingAboveMargin,
			stay: 0.09, swi: 0.085, required: 0.0018, turns: 5, out: 1000,
		},
		{
			// switch (haiku, 1 turn) = 1000*1e-6 + 1000*5e-6 = 0.006; nothing to stay on.
			name:   "no pin",
			in:     routing.PlanInput{Candidate: haiku, NewTokens: 1000, OutputTokens: 1000, RemainingTurns: 1},
			action: routing.PlanSwitch, model: "haiku", reason: routing.PlanNoPin,
			stay: 0, swi: 0.006, required: 0, turns: 1, out: 1000,
		},
		{
			// stay = 1 x (10000*0.3e-6 + 0 + 1000*15e-6) = 0.003 + 0.015 = 0.018
			// switch = 10000*3.75e-6 + 0.015 = 0.0525
			name:   "same model stays",
			in:     routing.PlanInput{Pinned: sonnet, Candidate: sonnet, ContextTokens: 10000, OutputTokens: 1000, RemainingTurns: 1},
			action: routing.PlanStay, model: "sonnet", reason: routing.PlanSameModel,
			stay: 0.018, swi: 0.0525, required: 0.0018, turns: 1, out: 1000,
		},
		{
			// stay (haiku) = 1 x (10000*0.1e-6 + 1000*5e-6) = 0.001 + 0.005 = 0.006
			// switch (sonnet) = 10000*3.75e-6 + 1000*15e-6 = 0.0375 + 0.015 = 0.0525
			name: "pinned model ineligible",
			in: routing.PlanInput{Pinned: haiku, Candidate: sonnet, ContextTokens: 10000, OutputTokens: 1000,
				RemainingTurns: 1, PinnedIneligible: true},
			action: routing.PlanSwitch, model: "sonnet", reason: routing.PlanPinnedIneligible,
			stay: 0.006, swi: 0.0525, required: 0.0006, turns: 1, out: 1000,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := routing.Plan(tt.in)
			if d.Action != tt.action || d.Model != tt.model || d.Reason != tt.reason {
				t.Fatalf("Plan = %s %s (%s), want %s %s (%s)\n%s", d.Action, d.Model, d.Reason, tt.action, tt.model, tt.reason, d.Explanation)
			}
			for _, c := range []struct {
				name      string
				got, want float64
			}{{"stay", d.StayCost, tt.stay}, {"switch", d.SwitchCost, tt.swi}, {"saving", d.Saving, tt.stay - tt.swi},
				{"required", d.Required, tt.required}} {
				if math.Abs(c.got-c.want) > 1e-12 {
					t.Errorf("%s cost = %.10f, want %.10f", c.name, c.got, c.want)
				}
			}
			if d.RemainingTurns != tt.turns || d.OutputTokens != tt.out {
				t.Errorf("turns, output = %d, %d; want %d, %d", d.RemainingTurns, d.OutputTokens, tt.turns, tt.out)
			}
			if !strings.Contains(d.Explanation, tt.model) || !strings.HasPrefix(d.Explanation, string(tt.action)) {
				t.Errorf("explanation %q does not start with %s and name %s", d.Explanation, tt.action, tt.model)
			}
		})
	}
}
