package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
)

// PinStore keeps session pins, shared by replicas (routing/pinsql).
type PinStore = routing.PinStore

// errNoSummary is a summary call that ended without a response.
var errNoSummary = errors.New("gateway: the handover summary call returned no response")

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
	// summary is the handover summary call's result once it was served (the
	// summarizer may run on its own goroutine, see routing.Handover), for
	// the credits stage to charge.
	summary atomic.Pointer[dispatch.Result]
}

// pinStage keeps a routed session on its model: it decides STAY or SWITCH
// for routed turns of a pinned session (changing the resolution on STAY),
// summarises a long history on a switch, and once the turn was served
// advances the pin. Explicit turns are never pinned.
type pinStage struct {
	pins     PinStore
	catalog  *catalog.Catalog
	plans    planner
	executor Executor
	handover routing.HandoverConfig
	logger   *slog.Logger
	// writes are this replica's pin updates still in flight, so the next
	// turn of a session waits for its own previous turn's update instead of
	// reading the pin before it (a client that answers a tool call within
	// milliseconds).
	writes *pinWrites
}

// pinWrites tracks the pin updates in flight by key: read-your-writes for
// the sessions this replica served; other replicas see the update once it
// is stored.
type pinWrites struct {
	mu      sync.Mutex
	pending map[routing.PinKey]chan struct{}
}

func newPinWrites() *pinWrites {
	return &pinWrites{pending: map[routing.PinKey]chan struct{}{}}
}

// start registers an update of k and returns the function that ends it.
func (w *pinWrites) start(k routing.PinKey) func() {
	done := make(chan struct{})
	w.mu.Lock()
	w.pending[k] = done
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		if w.pending[k] == done {
			delete(w.pending, k)
		}
		w.mu.Unlock()
		close(done)
	}
}

// wait blocks until the update of k in flight (if any) ended, ctx ended or
// limit passed: a slow pin store delays the next turn by at most limit.
func (w *pinWrites) wait(ctx context.Context, k routing.PinKey, limit time.Duration) {
	w.mu.Lock()
	done := w.pending[k]
	w.mu.Unlock()
	if done == nil {
		return
	}
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-done:
	case <-ctx.Done():
	case <-t.C:
	}
}

// pinWriteWait bounds how long a turn waits for its session's previous
// pin update on this replica.
const pinWriteWait = 250 * time.Millisecond

func (s pinStage) run(ctx context.Context, p *pass) error {
	if p.res.decision == nil {
		return nil
	}
	if err := s.apply(ctx, p.t.Caller, p.sessionID(), p.req, p.res); err != nil {
		return err
	}
	if st := p.res.session; st != nil && st.handover {
		if next, report := s.summarise(ctx, turnMeta(p), st, p.req); report.Applied {
			p.send = next
		}
	}
	return nil
}

// follow records the served turn on the session's pin, in the background:
// a slow pin store never delays the answer.
func (s pinStage) follow(ctx context.Context, p *pass) {
	st := p.res.sessionOrNil()
	if st == nil || p.result == nil {
		return
	}
	u := p.result.Usage
	next := st.pin.Advance(p.result.Served.Model, u.Input+u.CacheRead+u.CacheWrite, time.Now())
	end := s.writes.start(st.key) // before the answer is sent
	go func() {
		defer end()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := s.pins.Put(ctx, st.key, next, 0); err != nil {
			s.logger.WarnContext(ctx, "pin update failed", "err", err)
		}
	}()
}

// apply decides STAY or SWITCH for a routed turn of session sid; res holds
// the router's candidate and is changed in place on STAY.
func (s pinStage) apply(ctx context.Context, c Caller, sid string, req *llm.Request, res *resolution) error {
	turn := res.turn
	if turn == "" {
		turn = routing.ClassifyTurn(req)
	}
	if !turn.Pinned() {
		return nil
	}
	st := &sessionState{key: routing.PinKey{OrgID: c.OrgID, KeyID: c.KeyID, User: req.User, Session: sid, Role: routing.PinRole(req, turn)}}
	if st.key.Validate() != nil {
		return nil // no session to pin (no header and nothing to derive one from)
	}
	res.session = st
	s.writes.wait(ctx, st.key, pinWriteWait)
	pin, ok, err := s.pins.Get(ctx, st.key)
	if err != nil {
		// Pins are an optimisation: without one the router's choice stands.
		s.logger.WarnContext(ctx, "pin lookup failed", "err", err)
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
	pinned, err := s.catalog.Lookup(pin.Model)
	if err != nil {
		return nil // a model gone from the catalog: the router decides afresh
	}
	prompt := EstimateTokens(req)
	in := routing.PlanInput{
		Pinned:           planModel(pinned),
		Candidate:        planModel(res.model),
		ContextTokens:    min(pin.LastInputTokens, prompt),
		NewTokens:        max(prompt-pin.LastInputTokens, 0),
		PinnedIneligible: !slices.Contains(res.eligible, pinned.ID),
	}
	split := routing.HandoverSplitOf(req, s.handover)
	if split.Long && pinned.ID != res.model.ID {
		if sm, ok := s.cheapest(res.eligible); ok {
			st.summarizer = sm
			in.HandoverCost = routing.HandoverCost(split, sm.Price, summaryTokens)
			in.HandoverContextTokens = split.KeptTokens + summaryTokens
		}
	}
	d := routing.Plan(in)
	st.decision = &d
	if d.Action == routing.PlanStay {
		plan, err := s.plans.plan(pinned)
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
func (s pinStage) cheapest(eligible []string) (catalog.Model, bool) {
	var best catalog.Model
	found := false
	for _, id := range eligible {
		m, err := s.catalog.Lookup(id)
		if err != nil {
			continue
		}
		if !found || m.Price.Input+m.Price.Output < best.Price.Input+best.Price.Output {
			best, found = m, true
		}
	}
	return best, found
}

// summarise summarises the older history of req with a whole (unstreamed)
// auxiliary call through the dispatch boundary, kept on st for the credits
// stage; on any failure the full history is kept.
func (s pinStage) summarise(ctx context.Context, meta dispatch.Meta, st *sessionState, req *llm.Request) (*llm.Request, routing.HandoverReport) {
	plan, err := s.plans.plan(st.summarizer)
	if err != nil {
		return req, routing.HandoverReport{Reason: "no_summarizer_binding", Err: err}
	}
	m := meta
	m.OperationID = meta.RequestID + "/handover"
	m.IdempotencyKey = ""
	m.Provenance.Purpose = dispatch.PurposeHandover
	sum := routing.SummarizerFunc(func(ctx context.Context, older []llm.Message) (string, error) {
		op := &dispatch.Operation{Purpose: dispatch.PurposeHandover, Request: routing.SummaryRequest(st.summarizer.ID, older, summaryTokens)}
		res, err := s.executor.Run(ctx, m, plan, op, nil)
		if err != nil {
			return "", err
		}
		st.summary.Store(res) // served upstream (paid for), whatever becomes of the summary
		if res.Response == nil {
			return "", errNoSummary
		}
		var b strings.Builder
		for _, p := range res.Response.Content {
			if p.Type == llm.PartText {
				b.WriteString(p.Text)
			}
		}
		return b.String(), nil
	})
	return routing.Handover(ctx, req, sum, s.handover)
}

// sessionOrNil is the turn's pinned session, if any.
func (r *resolution) sessionOrNil() *sessionState {
	if r == nil {
		return nil
	}
	return r.session
}

// planSummary describes the planner's verdict for the request record.
func (st *sessionState) planSummary() string {
	if st == nil || st.decision == nil {
		return ""
	}
	d := st.decision
	return fmt.Sprintf(" plan=%s(%s) stay=$%.5f switch=$%.5f", d.Action, d.Reason, d.StayCost, d.SwitchCost)
}
