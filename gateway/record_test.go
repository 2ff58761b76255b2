package gateway

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
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
