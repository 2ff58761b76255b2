package gateway

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
)

// PinStore keeps session pins, shared by replicas (routing/pinsql).
type PinStore = routing.PinStore

// summaryTokens is the planned size of a handover summary.
const summaryTokens = 500

// sessionState is what a routed turn knows about its session.
type sessionState struct {
	key      routing.PinKey
	pin      routing.Pin
	hasPin   bool
	decision *routing.PlanDecision
	// handover says the turn switches models with a long history, which is
	// summarised (by summarizer) before dispatch.
	handover   bool
	summarizer catalog.Model
}

// applyPin decides STAY or SWITCH for a routed turn of a pinned session;
// res holds the router's candidate and is changed in place on STAY.
func (s *Service) applyPin(ctx context.Context, c Caller, h http.Header, req *llm.Request, res *resolution, eligible []string) error {
	if s.d.Pins == nil {
		return nil
	}
	turn := routing.ClassifyTurn(req)
	if !turn.Pinned() {
		return nil
	}
	sid, _ := routing.SessionOf(h, req)
	st := &sessionState{key: routing.PinKey{OrgID: c.OrgID, KeyID: c.KeyID, User: req.User, Session: sid, Role: routing.PinRole(req, turn)}}
	if st.key.Validate() != nil {
		return nil // no session to pin (no header and nothing to derive one from)
	}
	res.session = st
	pin, ok, err := s.d.Pins.Get(ctx, st.key)
	if err != nil {
		// Pins are an optimisation: without one the router's choice stands.
		s.d.Logger.WarnContext(ctx, "pin lookup failed", "err", err)
		return nil
	}
	st.pin, st.hasPin = pin, ok
	if !ok {
		return nil
	}
	if pin.Model == res.model.ID {
		res.route = RoutePinned // the session's model, which the router also picked
		return nil
	}
	pinned, err := s.d.Catalog.Lookup(pin.Model)
	if err != nil {
		return nil // a model gone from the catalog: the router decides afresh
	}
	prompt := EstimateTokens(req)
	in := routing.PlanInput{
		Pinned:           planModel(pinned),
		Candidate:        planModel(res.model),
		ContextTokens:    min(pin.LastInputTokens, prompt),
		NewTokens:        max(prompt-pin.LastInputTokens, 0),
		PinnedIneligible: !slices.Contains(eligible, pinned.ID),
	}
	split := routing.HandoverSplitOf(req, s.d.Handover)
	if split.Long && pinned.ID != res.model.ID {
		if sm, ok := s.cheapest(eligible); ok {
			st.summarizer = sm
			in.HandoverCost = routing.HandoverCost(split, sm.Price, summaryTokens)
			in.HandoverContextTokens = split.KeptTokens + summaryTokens
		}
	}
	d := routing.Plan(in)
	st.decision = &d
	if d.Action == routing.PlanStay {
		plan, err := s.planFor(pinned)
		if err != nil {
			return err
		}
		res.model, res.plan, res.route = pinned, plan, RoutePinned
		return nil
	}
	st.handover = split.Long && st.summarizer.ID != "" && in.HandoverCost > 0
	return nil
}

func planModel(m catalog.Model) routing.PlanModel {
	return routing.PlanModel{ID: m.ID, Tier: m.Tier, Price: m.Price}
}

// cheapest is the eligible model with the lowest input+output price.
func (s *Service) cheapest(eligible []string) (catalog.Model, bool) {
	var best catalog.Model
	found := false
	for _, id := range eligible {
		m, err := s.d.Catalog.Lookup(id)
		if err != nil {
			continue
		}
		if !found || m.Price.Input+m.Price.Output < best.Price.Input+best.Price.Output {
			best, found = m, true
		}
	}
	return best, found
}

// handover summarises the older history of req through the dispatch
// boundary's buffered adapter; on any failure the full history is kept.
func (s *Service) handover(ctx context.Context, meta dispatch.Meta, st *sessionState, req *llm.Request) (*llm.Request, routing.HandoverReport) {
	plan, err := s.planFor(st.summarizer)
	if err != nil {
		return req, routing.HandoverReport{Reason: "no_summarizer_binding", Err: err}
	}
	m := meta
	m.OperationID = meta.RequestID + "/handover"
	m.IdempotencyKey = ""
	m.Provenance.Purpose = dispatch.PurposeHandover
	sum := routing.SummarizerFunc(func(ctx context.Context, older []llm.Message) (string, error) {
		resp, err := s.d.Executor.Buffered(ctx, m, plan, routing.SummaryRequest(st.summarizer.ID, older, summaryTokens))
		if err != nil {
			return "", err
		}
		var b strings.Builder
		for _, p := range resp.Content {
			if p.Type == llm.PartText {
				b.WriteString(p.Text)
			}
		}
		return b.String(), nil
	})
	return routing.Handover(ctx, req, sum, s.d.Handover)
}

// advancePin records the served turn on the session's pin, in the
// background: a slow pin store never delays the answer.
func (s *Service) advancePin(st *sessionState, model string, inputTokens int) {
	if st == nil || s.d.Pins == nil {
		return
	}
	next := st.pin.Advance(model, inputTokens, time.Now())
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.d.Pins.Put(ctx, st.key, next, 0); err != nil {
			s.d.Logger.WarnContext(ctx, "pin update failed", "err", err)
		}
	}()
}

// planSummary describes the planner's verdict for the request record.
func (st *sessionState) planSummary() string {
	if st == nil || st.decision == nil {
		return ""
	}
	d := st.decision
	return fmt.Sprintf(" plan=%s(%s) stay=$%.5f switch=$%.5f", d.Action, d.Reason, d.StayCost, d.SwitchCost)
}
