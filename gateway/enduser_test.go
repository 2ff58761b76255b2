package gateway

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
)

func TestEndUser(t *testing.T) {
	for _, tt := range []struct {
		name, header, field   string
		wantUser, wantSession string
	}{
		{name: "plain OpenAI user", field: "u-42", wantUser: "u-42"},
		{name: "header wins", header: "alice@example.com", field: "u-42", wantUser: "alice@example.com"},
		{name: "Claude Code JSON with account", field: `{"device_id":"dev1","account_uuid":"acc1","session_id":"s1"}`,
			wantUser: "acc1", wantSession: "s1"},
		{name: "Claude Code JSON without account", field: `{"device_id":"dev1","account_uuid":"","session_id":"s2"}`,
			wantUser: "dev1", wantSession: "s2"},
		{name: "Claude Code legacy string", field: "user_abc123_account_acc-9_session_sess-7", wantUser: "acc-9", wantSession: "sess-7"},
		{name: "legacy without account", field: "user_abc123_account__session_sess-7", wantUser: "abc123", wantSession: "sess-7"},
		{name: "JSON of something else is kept whole", field: `{"x":1}`, wantUser: `{"x":1}`},
		{name: "user_ prefix alone is a plain id", field: "user_bob", wantUser: "user_bob"},
		{name: "bounded", field: strings.Repeat("x", 500), wantUser: strings.Repeat("x", maxUserLen)},
		{name: "none"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			if tt.header != "" {
				h.Set(HeaderUser, tt.header)
			}
			u, s := endUser(h, tt.field)
			if u != tt.wantUser || s != tt.wantSession {
				t.Fatalf("endUser = %q, %q; want %q, %q", u, s, tt.wantUser, tt.wantSession)
			}
		})
	}
}

// TestRecordNamesAndTags: the record carries the parsed end user and its
// session, the key's and the header's tags, the baseline model and the
// router's candidates; a turn refused before decoding still names the
// model it asked for.
func TestRecordNamesAndTags(t *testing.T) {
	router := &fakeRouter{d: routing.Decision{Model: "gpt-5-mini", Alpha: 0.5, BundleID: "default", BundleRevision: "r1",
		Scores: []routing.ModelScore{{Model: "gpt-5-mini", Score: 0.8}, {Model: "claude-sonnet-4-5", Score: 0.9}}}}
	limited := errors.New("rate limited")
	for _, tt := range []struct {
		name, body    string
		guardErr      error
		wantRequested string
		wantBaseline  string
		wantCands     string
	}{
		{name: "routed", body: `{"model":"auto","user":"{\"device_id\":\"d\",\"account_uuid\":\"acc\",\"session_id\":\"sess\"}","messages":[{"role":"user","content":"hi"}]}`,
			wantRequested: "auto", wantBaseline: "claude-sonnet-4-5", wantCands: "claude-sonnet-4-5=0.900 gpt-5-mini=0.800"},
		{name: "refused by the guard", guardErr: limited, body: `{"model":"gpt-5","messages":[]}`, wantRequested: "gpt-5"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rows := &requestRows{}
			s := testService(t, Config{}, Deps{Recorder: rows, Routers: StaticRouters{Router: router}}, WithGuard(&guardCalls{err: tt.guardErr}))
			h := http.Header{}
			h.Set(HeaderTags, "Team:Search, batch, bad tag")
			turn := &Turn{RequestID: "req", Received: time.Now(), Format: llm.FormatChat, Body: []byte(tt.body), Header: h,
				Caller: Caller{OrgID: "org", KeyID: "key", Scopes: []string{"inference"}, Tags: []string{"ci", "batch"}}}
			_ = s.Serve(context.Background(), turn, &captureOutput{})
			rows.mu.Lock()
			defer rows.mu.Unlock()
			if len(rows.rows) != 1 {
				t.Fatalf("records %+v, want one", rows.rows)
			}
			r := rows.rows[0]
			if r.Tags != "batch,ci,team:search" {
				t.Errorf("tags %q", r.Tags)
			}
			if r.RequestedModel != tt.wantRequested || r.BaselineModel != tt.wantBaseline || r.Candidates != tt.wantCands {
				t.Errorf("requested %q baseline %q candidates %q; want %q %q %q", r.RequestedModel, r.BaselineModel,
					r.Candidates, tt.wantRequested, tt.wantBaseline, tt.wantCands)
			}
			if tt.guardErr == nil && (r.User != "acc" || r.Session != "sess") {
				t.Errorf("user %q session %q, want acc and sess (the metadata's session over a derived one)", r.User, r.Session)
			}
		})
	}
}
