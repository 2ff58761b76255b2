package routing_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/routingtest"
)

// flow is the per-turn pin flow the gateway runs: classify, derive the
// session and pin key, read the pin, plan against the router's pick, serve,
// advance the pin.
type flow struct {
	pins  routing.PinStore
	clock *routingtest.Clock
	price map[string]routing.PlanModel
}

type served struct {
	model  string
	turn   routing.TurnType
	role   string
	reason string
}

func (f flow) turn(t *testing.T, org, key string, h http.Header, req *llm.Request, pick string) served {
	t.Helper()
	ctx := context.Background()
	tt := routing.ClassifyTurn(req)
	if !tt.Pinned() {
		return served{model: pick, turn: tt}
	}
	session, _ := routing.SessionOf(h, req)
	k := routing.PinKey{OrgID: org, KeyID: key, User: req.User, Session: session, Role: routing.PinRole(req, tt)}
	pin, ok, err := f.pins.Get(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	in := routing.PlanInput{Candidate: f.price[pick], NewTokens: 2000, OutputTokens: 800}
	if ok {
		in.Pinned = f.price[pin.Model]
		in.ContextTokens = pin.LastInputTokens
	}
	d := routing.Plan(in)
	prompt := estimate(req)
	if err := f.pins.Put(ctx, k, pin.Advance(d.Model, prompt, f.clock.Now()), 0); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(30 * time.Second)
	return served{model: d.Model, turn: tt, role: k.Role, reason: d.Reason}
}

func estimate(req *llm.Request) int {
	n := 20000 // system prompt and tools
	for _, m := range req.Messages {
		for _, p := range m.Content {
			n += len(p.Text)/4 + len(p.Arguments)/4 + 50
		}
	}
	return n
}

func TestSessionFlowPinsOneModel(t *testing.T) {
	clock := routingtest.NewClock(t0)
	f := flow{pins: routingtest.NewPinStore(clock.Now), clock: clock,
		price: map[string]routing.PlanModel{"sonnet": sonnet, "sonnet-alt": sonnetAlt, "haiku": haiku}}
	h := header("X-Claude-Code-Session-Id", "5f0c3d2e-cc")

	// Alice's Claude Code session: the router's pick flips between two
	// near-equal models; every main-loop turn stays on the first.
	req := &llm.Request{System: []llm.Part{text(ccMain)}, Tools: bashTool, User: "alice",
		Messages: []llm.Message{user(text("add a --verbose flag to the CLI"))}}
	picks := []string{"sonnet", "sonnet-alt", "sonnet-alt", "sonnet", "sonnet-alt", "sonnet-alt"}
	var got []served
	for i, pick := range picks {
		got = append(got, f.turn(t, "org_1", "key_1", h, req, pick))
		id := string(rune('a' + i))
		req.Messages = append(req.Messages, assistant(call(id, "Bash", `{"cmd":"go build ./..."}`)), user(result(id, "ok")))
	}
	wantTurns := []routing.TurnType{routing.TurnMain, routing.TurnToolResult, routing.TurnToolResult,
		routing.TurnToolResult, routing.TurnToolResult, routing.TurnToolResult}
	for i, s := range got {
		if s.model != "sonnet" || s.role != "main" || s.turn != wantTurns[i] {
			t.Fatalf("turn %d served %+v, want sonnet on the main pin as %s", i+1, s, wantTurns[i])
		}
	}
	if got[0].reason != routing.PlanNoPin || got[1].reason != routing.PlanSavingBelowMargin || got[3].reason != routing.PlanSameModel {
		t.Fatalf("reasons %s, %s, %s; want no_pin, saving_below_margin, same_model", got[0].reason, got[1].reason, got[3].reason)
	}

	// A Task sub-agent in the same session gets its own pin and leaves the
	// main pin alone.
	sub := &llm.Request{System: []llm.Part{text(ccSubAgent)}, Tools: bashTool, User: "alice",
		Messages: []llm.Message{user(text("find every caller of parseFlags"))}}
	s := f.turn(t, "org_1", "key_1", h, sub, "haiku")
	if s.model != "haiku" || s.turn != routing.TurnSubAgent || s.reason != routing.PlanNoPin || s.role == "main" {
		t.Fatalf("sub-agent turn = %+v, want haiku on its own new pin", s)
	}
	if s := f.turn(t, "org_1", "key_1", h, req, "sonnet-alt"); s.model != "sonnet" {
		t.Fatalf("main turn after the sub-agent served %+v, want sonnet", s)
	}

	// A probe and a title request are not pinned.
	probe := &llm.Request{MaxTokens: 1, User: "alice", Messages: []llm.Message{user(text("quota"))}}
	if s := f.turn(t, "org_1", "key_1", h, probe, "haiku"); s.model != "haiku" || s.turn != routing.TurnProbe || s.role != "" {
		t.Fatalf("probe = %+v, want unpinned haiku", s)
	}

	// Bob sends the same prompts with the same session id: he never sees
	// Alice's pin, and his own pin does not move hers.
	bobReq := &llm.Request{System: []llm.Part{text(ccMain)}, Tools: bashTool, User: "bob",
		Messages: []llm.Message{user(text("add a --verbose flag to the CLI"))}}
	if s := f.turn(t, "org_1", "key_1", h, bobReq, "haiku"); s.model != "haiku" || s.reason != routing.PlanNoPin {
		t.Fatalf("bob's first turn = %+v, want haiku with no pin", s)
	}
	if s := f.turn(t, "org_1", "key_1", h, req, "sonnet-alt"); s.model != "sonnet" {
		t.Fatalf("alice after bob = %+v, want sonnet", s)
	}
	// The same user id under another key or org is another pin too.
	if s := f.turn(t, "org_1", "key_2", h, req, "haiku"); s.model != "haiku" || s.reason != routing.PlanNoPin {
		t.Fatalf("alice under key_2 = %+v, want a fresh pin", s)
	}
	if s := f.turn(t, "org_2", "key_1", h, req, "haiku"); s.model != "haiku" || s.reason != routing.PlanNoPin {
		t.Fatalf("alice under org_2 = %+v, want a fresh pin", s)
	}

	// After an hour of silence the pin is gone.
	clock.Advance(routing.DefaultPinTTL)
	if s := f.turn(t, "org_1", "key_1", h, req, "sonnet-alt"); s.model != "sonnet-alt" || s.reason != routing.PlanNoPin {
		t.Fatalf("after the TTL = %+v, want a fresh pin on the router's pick", s)
	}
}
