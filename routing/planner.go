package routing

import (
	"fmt"

	"github.com/heddle-gw/heddle/catalog"
)

// Planner defaults.
const (
	// DefaultPlanRemainingTurns is how many more turns a session is expected
	// to run, this one included, when the caller has no better estimate.
	DefaultPlanRemainingTurns = 5
	// DefaultPlanOutputTokens is the expected output of one turn.
	DefaultPlanOutputTokens = 800
	// DefaultPlanMargin is the fraction of the cost of staying that a switch
	// must save: estimates are rough, and a switch loses the pinned model's
	// warm prompt cache for good.
	DefaultPlanMargin = 0.10
)

// PlanAction is the planner's verdict.
type PlanAction string

// Planner verdicts.
const (
	PlanStay   PlanAction = "stay"
	PlanSwitch PlanAction = "switch"
)

// Plan reasons, a closed vocabulary.
const (
	PlanNoPin             = "no_pin"              // nothing pinned: serve the candidate
	PlanSameModel         = "same_model"          // the candidate is the pinned model
	PlanHigherTier        = "higher_tier"         // the turn needs a higher tier than the pinned model
	PlanPinnedIneligible  = "pinned_ineligible"   // the pinned model cannot serve this turn
	PlanSavingAboveMargin = "saving_above_margin" // switching saves more than the margin
	PlanSavingBelowMargin = "saving_below_margin" // switching saves too little (or costs more)
)

// PlanModel is a model as the planner sees it.
type PlanModel struct {
	ID    string
	Tier  catalog.Tier
	Price catalog.Price // USD per million tokens
}

// PlanInput is one STAY-or-SWITCH question. Token counts are per turn.
type PlanInput struct {
	// Pinned is the session's model; a zero ID means no pin.
	Pinned PlanModel
	// Candidate is the router's pick for this turn.
	Candidate PlanModel
	// ContextTokens is the prompt already sent in earlier turns: what the
	// pinned model's prompt cache holds (Pin.LastInputTokens plus the
	// previous output, or this turn's prompt minus NewTokens).
	ContextTokens int
	// NewTokens is the prompt added per turn (the user message or tool
	// results), which no cache holds.
	NewTokens int
	// OutputTokens is the expected output per turn (DefaultPlanOutputTokens
	// when 0).
	OutputTokens int
	// RemainingTurns is the expected number of turns left, this one
	// included (DefaultPlanRemainingTurns when 0).
	RemainingTurns int
	// HandoverCost is the estimated cost in USD of summarising the history
	// for the candidate (0 when there is no handover).
	HandoverCost float64
	// HandoverContextTokens is the context the candidate sees after the
	// handover; 0 means ContextTokens (no handover).
	HandoverContextTokens int
	// PinnedCacheCold says the pinned model's prompt cache has expired (the
	// session was idle longer than the provider keeps it), so staying pays
	// a cache write on the first turn too.
	PinnedCacheCold bool
	// NeedsHigherTier forces a switch; a candidate of a higher tier than the
	// pinned model is taken as that need as well.
	NeedsHigherTier bool
	// PinnedIneligible says the pinned model cannot serve this turn (a
	// capability it lacks, a context it cannot fit, a policy change).
	PinnedIneligible bool
	// Margin is the fraction of the cost of staying a switch must save
	// (DefaultPlanMargin when 0; negative means 0).
	Margin float64
}

// PlanDecision is the planner's verdict and its explanation. Costs are USD
// over the remaining turns.
type PlanDecision struct {
	Action PlanAction `json:"action"`
	// Model serves this turn: the pinned model on STAY, the candidate on
	// SWITCH.
	Model      string  `json:"model"`
	Reason     string  `json:"reason"`
	StayCost   float64 `json:"stay_cost_usd"`
	SwitchCost float64 `json:"switch_cost_usd"`
	// Saving is StayCost - SwitchCost (negative when switching costs more).
	Saving float64 `json:"saving_usd"`
	Margin float64 `json:"margin"`
	// Required is the saving a switch needed: Margin x StayCost.
	Required       float64 `json:"required_usd"`
	RemainingTurns int     `json:"remaining_turns"`
	OutputTokens   int     `json:"output_tokens"`
	// Explanation is one human-readable sentence.
	Explanation string `json:"explanation"`
}

// Plan decides whether a turn stays on the pinned model or switches to the
// router's candidate, pricing prompt caching in. With T remaining turns, C
// context tokens (C' after a handover), N new and O output tokens per turn,
// and each model's prices per token (cache read and cache write fall back to
// the input price when the catalog has none):
//
//	stay   = T x (C x cacheRead + N x input + O x output)   [pinned prices]
//	         (+ C x (cacheWrite - cacheRead) once when the pinned cache is cold)
//	switch = C' x cacheWrite + N x input + O x output        [candidate, first turn]
//	         + (T-1) x (C' x cacheRead + N x input + O x output)
//	         + handover cost
//
// The first switched turn writes the whole prompt to the candidate's cache
// (Anthropic charges the cache-write price instead of the input price for
// those tokens; OpenAI and Google have no write charge, so input price). The
// context is held constant over the remaining turns: growth adds about the
// same cached tokens on both sides. SWITCH when there is no pin, the pinned
// model is ineligible, the turn needs a higher tier, or the saving exceeds
// Margin x stay; STAY otherwise (and when the candidate is the pinned model).
func Plan(in PlanInput) PlanDecision {
	d := PlanDecision{Margin: in.Margin, RemainingTurns: in.RemainingTurns, OutputTokens: in.OutputTokens}
	if d.Margin == 0 {
		d.Margin = DefaultPlanMargin
	} else if d.Margin < 0 {
		d.Margin = 0
	}
	if d.RemainingTurns <= 0 {
		d.RemainingTurns = DefaultPlanRemainingTurns
	}
	if d.OutputTokens <= 0 {
		d.OutputTokens = DefaultPlanOutputTokens
	}
	ctxSwitch := in.HandoverContextTokens
	if ctxSwitch <= 0 {
		ctxSwitch = in.ContextTokens
	}
	t := float64(d.RemainingTurns)
	c, n, o := float64(in.ContextTokens), float64(in.NewTokens), float64(d.OutputTokens)

	if in.Pinned.ID != "" {
		p := perToken(in.Pinned.Price)
		d.StayCost = t * (c*p.cacheRead + n*p.input + o*p.output)
		if in.PinnedCacheCold {
			d.StayCost += c * (p.cacheWrite - p.cacheRead)
		}
	}
	if in.Candidate.ID != "" {
		p := perToken(in.Candidate.Price)
		cs := float64(ctxSwitch)
		d.SwitchCost = cs*p.cacheWrite + n*p.input + o*p.output +
			(t-1)*(cs*p.cacheRead+n*p.input+o*p.output) + in.HandoverCost
	}
	d.Saving = d.StayCost - d.SwitchCost
	d.Required = d.Margin * d.StayCost

	switch {
	case in.Pinned.ID == "":
		d.Action, d.Model, d.Reason = PlanSwitch, in.Candidate.ID, PlanNoPin
	case in.Candidate.ID == "" || in.Candidate.ID == in.Pinned.ID:
		d.Action, d.Model, d.Reason = PlanStay, in.Pinned.ID, PlanSameModel
	case in.PinnedIneligible:
		d.Action, d.Model, d.Reason = PlanSwitch, in.Candidate.ID, PlanPinnedIneligible
	case in.NeedsHigherTier || in.Candidate.Tier > in.Pinned.Tier:
		d.Action, d.Model, d.Reason = PlanSwitch, in.Candidate.ID, PlanHigherTier
	case d.Saving > d.Required:
		d.Action, d.Model, d.Reason = PlanSwitch, in.Candidate.ID, PlanSavingAboveMargin
	default:
		d.Action, d.Model, d.Reason = PlanStay, in.Pinned.ID, PlanSavingBelowMargin
	}
	d.Explanation = explainPlan(in, d)
	return d
}

type tokenPrices struct{ input, output, cacheRead, cacheWrite float64 }

func perToken(p catalog.Price) tokenPrices {
	t := tokenPrices{input: p.Input / 1e6, output: p.Output / 1e6, cacheRead: p.CacheRead / 1e6, cacheWrite: p.CacheWrite / 1e6}
	if p.CacheRead <= 0 {
		t.cacheRead = t.input
	}
	if p.CacheWrite <= 0 {
		t.cacheWrite = t.input
	}
	return t
}

func explainPlan(in PlanInput, d PlanDecision) string {
	costs := fmt.Sprintf("over %d turns staying on %s costs $%.6f, switching to %s $%.6f (saving $%.6f, %.0f%% margin needs $%.6f)",
		d.RemainingTurns, in.Pinned.ID, d.StayCost, in.Candidate.ID, d.SwitchCost, d.Saving, d.Margin*100, d.Required)
	switch d.Reason {
	case PlanNoPin:
		return fmt.Sprintf("switch to %s: no pinned model", in.Candidate.ID)
	case PlanSameModel:
		return fmt.Sprintf("stay on %s: the router picked the pinned model", in.Pinned.ID)
	case PlanPinnedIneligible:
		return fmt.Sprintf("switch to %s: pinned %s cannot serve this turn; %s", in.Candidate.ID, in.Pinned.ID, costs)
	case PlanHigherTier:
		return fmt.Sprintf("switch to %s (tier %d): the turn needs a higher tier than pinned %s (tier %d); %s",
			in.Candidate.ID, in.Candidate.Tier, in.Pinned.ID, in.Pinned.Tier, costs)
	case PlanSavingAboveMargin:
		return "switch: " + costs
	}
	return "stay: " + costs
}
