package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/routingtest"
)

// requestRows keeps the request records.
type requestRows struct {
	mu   sync.Mutex
	rows []analytics.Request
}

func (r *requestRows) RecordAttempt(analytics.Attempt) {}
func (r *requestRows) RecordRequest(a analytics.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rows = append(r.rows, a)
}

// pinKeys is a PinStore noting the keys it was asked for.
type pinKeys struct {
	*routingtest.PinStore
	mu   sync.Mutex
	keys []routing.PinKey
}

func (p *pinKeys) Get(ctx context.Context, k routing.PinKey) (routing.Pin, bool, error) {
	p.mu.Lock()
	p.keys = append(p.keys, k)
	p.mu.Unlock()
	return p.PinStore.Get(ctx, k)
}

// TestRecordSession: the record keeps the session id the pin used: a long
// header id bounded to its digest, a derived id without a header, and the
// header's id for a turn refused before it was decoded.
func TestRecordSession(t *testing.T) {
	long := strings.Repeat("s", 5000)
	longID, _ := routing.SessionOf(http.Header{routing.HeaderHeddleSession: {long}}, nil)
	derived, _ := routing.SessionOf(nil, userReq("auto", "plan the release"))
	router := &fakeRouter{d: routing.Decision{Model: "gpt-5-mini", Alpha: 0.6, BundleID: "default", BundleRevision: "r1"}}
	for _, tt := range []struct {
		name, session, body string
		scopes              []string
		wantSession         string
		wantPinned          bool
	}{
		{name: "long header id is bounded", session: long, scopes: []string{"inference"},
			body: `{"model":"auto","messages":[{"role":"user","content":"plan the release"}]}`, wantSession: longID, wantPinned: true},
		{name: "derived without a header", scopes: []string{"inference"},
			body: `{"model":"auto","messages":[{"role":"user","content":"plan the release"}]}`, wantSession: derived, wantPinned: true},
		{name: "refused before decode keeps the header's id", session: "abc", scopes: []string{"route"},
			body: `{"model":"auto"}`, wantSession: "abc"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rows := &requestRows{}
			pins := &pinKeys{PinStore: routingtest.NewPinStore(nil)}
			s := testService(t, Config{}, Deps{Recorder: rows, Routers: StaticRouters{Router: router}}, WithPins(pins, routing.HandoverConfig{}))
			h := http.Header{}
			if tt.session != "" {
				h.Set(routing.HeaderHeddleSession, tt.session)
			}
			turn := &Turn{RequestID: "req", Received: time.Now(), Format: llm.FormatChat, Body: []byte(tt.body), Header: h,
				Caller: Caller{OrgID: "org", KeyID: "key", Scopes: tt.scopes}}
			_ = s.Serve(context.Background(), turn, &captureOutput{})
			rows.mu.Lock()
			defer rows.mu.Unlock()
			if len(rows.rows) != 1 || rows.rows[0].Session != tt.wantSession {
				t.Fatalf("records %+v, want one with session %q", rows.rows, tt.wantSession)
			}
			if len(tt.wantSession) > routing.MaxSessionIDBytes {
				t.Errorf("recorded session id of %d bytes", len(tt.wantSession))
			}
			pins.mu.Lock()
			defer pins.mu.Unlock()
			if tt.wantPinned && (len(pins.keys) != 1 || pins.keys[0].Session != tt.wantSession) {
				t.Errorf("pin keys %+v, want one for session %q", pins.keys, tt.wantSession)
			}
			if !tt.wantPinned && len(pins.keys) != 0 {
				t.Errorf("a refused turn looked up pins %+v", pins.keys)
			}
		})
	}
}

// resultExec answers every turn with res (its Served set to the plan's first
// target) and err, as an idempotent duplicate or an interrupted stream does.
type resultExec struct {
	answerExec
	res dispatch.Result
	err error
}

func (e resultExec) Run(_ context.Context, _ dispatch.Meta, plan dispatch.Plan, op *dispatch.Operation, _ dispatch.StreamWriter) (*dispatch.Result, error) {
	res := e.res
	res.Served = plan.Targets[0]
	res.Response = &llm.Response{Model: res.Served.Model, StopReason: llm.StopEnd, Content: []llm.Part{{Type: llm.PartText, Text: "shared"}}}
	return &res, e.err
}

// TestAccountMoney: an idempotent join or replay costs nothing on the
// record and settles nothing (the owner's turn paid), and is noted as
// such; the owner itself is priced; a committed stream failure keeps its
// usage and cost and notes why it was interrupted.
func TestAccountMoney(t *testing.T) {
	usage := llm.Usage{Input: 1000, Output: 500}
	interrupted := fmt.Errorf("%w: openai/gpt-5-mini: stream_stall", dispatch.ErrCommitted)
	for _, tt := range []struct {
		name         string
		res          dispatch.Result
		err          error
		wantCost     bool // priced at gpt-5-mini's price, tokens recorded and settled
		wantAttempts int
		wantNote     string
		wantStatus   int
		wantCode     string
	}{
		{name: "the owner pays", res: dispatch.Result{Usage: usage, Attempts: 1}, wantCost: true, wantAttempts: 1, wantStatus: 200},
		{name: "a join costs nothing", res: dispatch.Result{Usage: usage, Shared: dispatch.SharedJoin},
			wantNote: " idempotent:join", wantStatus: 200},
		{name: "a replay costs nothing", res: dispatch.Result{Usage: usage, Shared: dispatch.SharedReplay},
			wantNote: " idempotent:replay", wantStatus: 200},
		{name: "an interrupted stream is priced and noted", err: interrupted,
			res:      dispatch.Result{Usage: usage, Attempts: 1, Committed: true, Interrupted: dispatch.ReasonStreamStall},
			wantCost: true, wantAttempts: 1, wantNote: " interrupted:stream_stall", wantStatus: 200, wantCode: "dispatch.stream_interrupted"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rows, g := &requestRows{}, &guardCalls{}
			classify := func(err error) (int, string) {
				if errors.Is(err, dispatch.ErrCommitted) {
					return 200, "dispatch.stream_interrupted"
				}
				return 500, "internal.error"
			}
			s := testService(t, Config{}, Deps{Recorder: rows, Executor: resultExec{res: tt.res, err: tt.err}, Classify: classify}, WithGuard(g))
			turn := &Turn{RequestID: "req", Received: time.Now(), Format: llm.FormatChat,
				Body:   []byte(`{"model":"gpt-5-mini","messages":[{"role":"user","content":"charge order 42"}]}`),
				Header: http.Header{"Idempotency-Key": {"order-42"}}, Caller: Caller{OrgID: "org", KeyID: "key", Scopes: []string{"inference"}}}
			_ = s.Serve(context.Background(), turn, &captureOutput{})
			if len(rows.rows) != 1 {
				t.Fatalf("%d records", len(rows.rows))
			}
			r := rows.rows[0]
			cat, _ := catalog.Default()
			m, _ := cat.Lookup("gpt-5-mini")
			price := int64(billing.Cost(usage, catalog.PriceOf(m, m.Bindings[0])))
			wantCost, wantTokens := int64(0), int64(0)
			if tt.wantCost {
				wantCost, wantTokens = price, 1500
			}
			if r.CostMicros != wantCost || r.InputTokens+r.OutputTokens != wantTokens || r.Attempts != tt.wantAttempts ||
				(wantCost == 0 && (r.BaselineMicros != 0 || r.SavingsMicros != 0)) {
				t.Errorf("record cost %d tokens %d attempts %d baseline %d savings %d, want cost %d tokens %d attempts %d",
					r.CostMicros, r.InputTokens+r.OutputTokens, r.Attempts, r.BaselineMicros, r.SavingsMicros, wantCost, wantTokens, tt.wantAttempts)
			}
			if r.ServedModel != "gpt-5-mini" || r.Decision != "explicit:gpt-5-mini"+tt.wantNote || r.RouteKind != "explicit" {
				t.Errorf("record served %q route %q decision %q, want note %q", r.ServedModel, r.RouteKind, r.Decision, tt.wantNote)
			}
			if r.Status != tt.wantStatus || r.ErrorCode != tt.wantCode || r.Failed() != (tt.wantCode != "") {
				t.Errorf("record status %d code %q failed %v, want %d %q", r.Status, r.ErrorCode, r.Failed(), tt.wantStatus, tt.wantCode)
			}
			if tt.wantCost && (len(g.settled) != 1 || g.settled[0] != price || g.tokens[0] != 1500) {
				t.Errorf("settled %v tokens %v, want %d for 1500 tokens", g.settled, g.tokens, price)
			}
			if !tt.wantCost && len(g.settled) != 0 {
				t.Errorf("a turn without an upstream call settled %v", g.settled)
			}
		})
	}
}
