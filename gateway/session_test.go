package gateway

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/internal/testwait"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/routingtest"
)

// failingPins is a PinStore that cannot be read.
type failingPins struct{ *routingtest.PinStore }

func (failingPins) Get(context.Context, routing.PinKey) (routing.Pin, bool, error) {
	return routing.Pin{}, false, errors.New("connection refused")
}

// TestPinStage: routed turns of a session stay on its pinned model when
// staying is cheaper, keep the router's choice without a pin or when pins
// cannot be read; explicit turns are never pinned; a served turn advances
// the pin.
func TestPinStage(t *testing.T) {
	router := &fakeRouter{d: routing.Decision{Model: "claude-haiku-4-5", Alpha: 0.6, BundleID: "default", BundleRevision: "r1"}}
	key := routing.PinKey{OrgID: "org", KeyID: "key", Session: "s1", Role: "main"}
	for _, tt := range []struct {
		name      string
		model     string
		pinned    string // the session's pin before the turn ("" none)
		failing   bool
		wantRoute string
		wantModel string
		wantPin   string // the pin after the turn
	}{
		{name: "no pin yet: the router's choice, then pinned", model: "auto", wantRoute: RouteRouted, wantModel: "claude-haiku-4-5", wantPin: "claude-haiku-4-5"},
		{name: "pinned to the router's choice", model: "auto", pinned: "claude-haiku-4-5", wantRoute: RoutePinned, wantModel: "claude-haiku-4-5", wantPin: "claude-haiku-4-5"},
		{name: "pinned elsewhere, staying is cheaper: stays", model: "auto", pinned: "gpt-5-mini", wantRoute: RoutePinned, wantModel: "gpt-5-mini", wantPin: "gpt-5-mini"},
		{name: "pins unreadable: the router's choice", model: "auto", failing: true, wantRoute: RouteRouted, wantModel: "claude-haiku-4-5"},
		{name: "explicit turns are not pinned", model: "gpt-5-nano", pinned: "claude-haiku-4-5", wantRoute: RouteExplicit, wantModel: "gpt-5-nano", wantPin: "claude-haiku-4-5"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			store := routingtest.NewPinStore(nil)
			if tt.pinned != "" {
				now := time.Now()
				if err := store.Put(context.Background(), key, routing.Pin{Model: tt.pinned, Turns: 3, LastInputTokens: 20000, Created: now, Updated: now}, 0); err != nil {
					t.Fatal(err)
				}
			}
			var pins PinStore = store
			if tt.failing {
				pins = failingPins{store}
			}
			s := testService(t, Config{}, Deps{Routers: StaticRouters{Router: router}})
			st := pinStage{pins: pins, catalog: s.d.Catalog, plans: s.plans, executor: s.d.Executor, logger: s.d.Logger, writes: newPinWrites()}
			// A long conversation the pinned model's prompt cache holds.
			req := userReq(tt.model, "keep refactoring parse.go "+strings.Repeat("func parse() error { return nil } ", 2500))
			p := &pass{t: &Turn{RequestID: "req", Header: http.Header{routing.HeaderHeddleSession: {"s1"}}, Caller: Caller{OrgID: "org", KeyID: "key"}}, req: req}
			res, err := s.resolve(context.Background(), p.t.Caller, req, routingFor(context.Background(), s.d.Routers, "org"))
			if err != nil {
				t.Fatal(err)
			}
			p.res = res
			if err := st.run(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			if p.res.route != tt.wantRoute || p.res.model.ID != tt.wantModel || p.res.plan.Targets[0].Model != tt.wantModel {
				t.Fatalf("route %s model %s plan %v, want %s %s", p.res.route, p.res.model.ID, p.res.plan.Targets, tt.wantRoute, tt.wantModel)
			}
			if tt.failing {
				return
			}
			if tt.wantRoute == RouteExplicit && p.res.session != nil {
				t.Fatalf("an explicit turn has a pinned session %+v", p.res.session)
			}
			p.result = &dispatch.Result{Served: p.res.plan.Targets[0], Usage: llm.Usage{Input: 100}}
			st.follow(context.Background(), p)
			testwait.Until(t, 5*time.Second, "the pin on "+tt.wantPin, func() bool {
				pin, ok, err := store.Get(context.Background(), key)
				if err != nil {
					t.Fatal(err)
				}
				return ok && pin.Model == tt.wantPin && (tt.wantRoute == RouteExplicit || pin.LastInputTokens == 100)
			})
		})
	}
}

// slowPins is a PinStore whose writes wait until release is closed.
type slowPins struct {
	*routingtest.PinStore
	release chan struct{}
}

func (s slowPins) Put(ctx context.Context, k routing.PinKey, p routing.Pin, ttl time.Duration) error {
	<-s.release
	return s.PinStore.Put(ctx, k, p, ttl)
}

// TestPinReadYourWrites: the next turn of a session on this replica reads
// the pin its previous turn is still writing in the background, instead of
// routing afresh before the write lands (a client answering a tool call
// within milliseconds).
func TestPinReadYourWrites(t *testing.T) {
	pins := slowPins{routingtest.NewPinStore(nil), make(chan struct{})}
	w := newPinWrites()
	key := routing.PinKey{OrgID: "org", KeyID: "key", Session: "s1", Role: "main"}
	st := pinStage{pins: pins, writes: w, logger: slog.New(slog.DiscardHandler)}
	first := &pass{res: &resolution{session: &sessionState{key: key}}, result: &dispatch.Result{Served: dispatch.Target{Model: "gpt-5-mini"}}}
	st.follow(context.Background(), first) // the update waits on release

	w.mu.Lock()
	_, inFlight := w.pending[key]
	w.mu.Unlock()
	if !inFlight {
		t.Fatal("the update was not registered before follow returned")
	}
	read := make(chan routing.Pin, 1)
	go func() {
		w.wait(context.Background(), key, time.Minute)
		p, _, _ := pins.Get(context.Background(), key)
		read <- p
	}()
	close(pins.release)
	if p := <-read; p.Model != "gpt-5-mini" {
		t.Fatalf("next turn read pin %+v, want the previous turn's model", p)
	}
}
