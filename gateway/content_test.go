package gateway

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/internal/testwait"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/anthropic"
	"github.com/heddle-gw/heddle/llm/openaichat"
)

// keeper records what it is asked to keep; enabled lists opted-in orgs.
type keeper struct {
	enabled map[string]bool
	mu      sync.Mutex
	kept    []analytics.TurnContent
	got     chan struct{}
}

func (k *keeper) Enabled(_ context.Context, org string) bool { return k.enabled[org] }

func (k *keeper) Keep(_ context.Context, c analytics.TurnContent) error {
	k.mu.Lock()
	k.kept = append(k.kept, c)
	k.mu.Unlock()
	k.got <- struct{}{}
	return nil
}

// answerExec answers every turn with "hello there": whole, or streamed as
// canonical events.
type answerExec struct{}

func (answerExec) Run(_ context.Context, _ dispatch.Meta, plan dispatch.Plan, op *dispatch.Operation, out dispatch.StreamWriter) (*dispatch.Result, error) {
	t := plan.Targets[0]
	res := &dispatch.Result{Served: t, Usage: llm.Usage{Input: 3, Output: 2}}
	if out == nil {
		res.Response = &llm.Response{Model: t.Model, StopReason: llm.StopEnd, Content: []llm.Part{{Type: llm.PartText, Text: "hello there"}}}
		return res, nil
	}
	out.(dispatch.Committer).Commit(t, false)
	for _, e := range []llm.Event{
		{Type: llm.EventMessageStart, ID: "m1", Model: t.Model},
		{Type: llm.EventBlockStart, Index: 0, Block: &llm.Part{Type: llm.PartText}},
		{Type: llm.EventTextDelta, Index: 0, Text: "hello "},
		{Type: llm.EventTextDelta, Index: 0, Text: "there"},
		{Type: llm.EventBlockStop, Index: 0},
		{Type: llm.EventMessageDelta, StopReason: llm.StopEnd, Usage: &llm.Usage{Input: 3, Output: 2}},
		{Type: llm.EventDone},
	} {
		if err := out.Write(e); err != nil {
			return res, err
		}
	}
	return res, nil
}

type nopRecorder struct{}

func (nopRecorder) RecordAttempt(analytics.Attempt) {}
func (nopRecorder) RecordRequest(analytics.Request) {}

// TestContentKept: an opted-in organisation's whole and streamed turns hand
// their request and final answer to the keeper; another organisation's
// never do.
func TestContentKept(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	k := &keeper{enabled: map[string]bool{"org_in": true}, got: make(chan struct{}, 8)}
	svc := testService(t, Config{BaselineModel: "claude-sonnet-4-5"}, Deps{Catalog: cat, Executor: answerExec{}, Recorder: nopRecorder{},
		Codecs: Codecs{llm.FormatChat: openaichat.New(), llm.FormatAnthropic: anthropic.New()},
		Logger: slog.New(slog.DiscardHandler)}, WithContent(k))
	tests := []struct {
		name, org string
		format    llm.Format
		body      string
		kept      bool
	}{
		{"whole chat", "org_in", llm.FormatChat, `{"model":"gpt-5-mini","messages":[{"role":"user","content":"tell me"}]}`, true},
		{"streamed anthropic", "org_in", llm.FormatAnthropic, `{"model":"claude-haiku-4-5","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"tell me"}]}`, true},
		{"not opted in", "org_out", llm.FormatChat, `{"model":"gpt-5-mini","messages":[{"role":"user","content":"tell me"}]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			turn := &Turn{RequestID: "req_" + tt.name, Received: time.Now(), Format: tt.format, Body: []byte(tt.body), Header: http.Header{},
				Caller: Caller{OrgID: tt.org, KeyID: "key_1", Scopes: []string{"inference"}}}
			if err := svc.Serve(context.Background(), turn, &captureOutput{}); err != nil {
				t.Fatal(err)
			}
			if !tt.kept {
				// An opted-in turn after it is kept; only then is the
				// absence of the first one's content meaningful.
				k.mu.Lock()
				before := len(k.kept)
				k.mu.Unlock()
				probe := &Turn{RequestID: "req_probe_" + tt.name, Received: time.Now(), Format: llm.FormatChat, Header: http.Header{},
					Body:   []byte(`{"model":"gpt-5-mini","messages":[{"role":"user","content":"probe"}]}`),
					Caller: Caller{OrgID: "org_in", KeyID: "key_1", Scopes: []string{"inference"}}}
				if err := svc.Serve(context.Background(), probe, &captureOutput{}); err != nil {
					t.Fatal(err)
				}
				select {
				case <-k.got:
				case <-time.After(5 * time.Second):
					t.Fatal("the opted-in probe was never kept")
				}
				k.mu.Lock()
				defer k.mu.Unlock()
				if len(k.kept) != before+1 || k.kept[len(k.kept)-1].RequestID != probe.RequestID {
					t.Fatalf("kept %d rows after the probe (want only the probe's): %+v", len(k.kept)-before, k.kept[before:])
				}
				return
			}
			select {
			case <-k.got:
			case <-time.After(5 * time.Second):
				t.Fatal("content never kept")
			}
			k.mu.Lock()
			c := k.kept[len(k.kept)-1]
			k.mu.Unlock()
			if c.OrgID != tt.org || c.KeyID != "key_1" || c.RequestID != turn.RequestID || c.Request == nil || c.Response == nil {
				t.Fatalf("kept %+v", c)
			}
			if got := c.Request.Messages[0].Content[0].Text; got != "tell me" {
				t.Errorf("request text %q", got)
			}
			if len(c.Response.Content) != 1 || c.Response.Content[0].Text != "hello there" {
				t.Errorf("response content %+v", c.Response.Content)
			}
		})
	}
}

// blockingKeeper holds every Keep until release is closed.
type blockingKeeper struct {
	started chan struct{}
	release chan struct{}
	mu      sync.Mutex
	kept    int
}

func (k *blockingKeeper) Enabled(context.Context, string) bool { return true }

func (k *blockingKeeper) Keep(context.Context, analytics.TurnContent) error {
	k.started <- struct{}{}
	<-k.release
	k.mu.Lock()
	k.kept++
	k.mu.Unlock()
	return nil
}

// TestKeepContentBounded: with the store stuck, at most maxKeeping stores
// are in flight; the turns beyond are not stored (and do not wait), and once
// the store answers, storing resumes.
func TestKeepContentBounded(t *testing.T) {
	k := &blockingKeeper{started: make(chan struct{}, 2*maxKeeping), release: make(chan struct{})}
	s := newContentStage(k, slog.New(slog.NewTextHandler(io.Discard, nil)))
	req, resp := &llm.Request{Model: "m"}, &llm.Response{Model: "m"}
	turn := func(i int) *Turn {
		return &Turn{RequestID: "req-" + string(rune('a'+i%26)), Caller: Caller{OrgID: "org"}}
	}
	begin := time.Now()
	for i := range maxKeeping + 10 {
		s.follow(context.Background(), &pass{t: turn(i), keep: true, req: req, response: resp})
	}
	if d := time.Since(begin); d > 2*time.Second {
		t.Fatalf("handing over %d turns took %v: it waited on the store", maxKeeping+10, d)
	}
	for range maxKeeping {
		<-k.started
	}
	select {
	case <-k.started:
		t.Fatalf("more than %d content stores in flight", maxKeeping)
	case <-time.After(100 * time.Millisecond):
	}
	close(k.release)
	testwait.Until(t, time.Minute, fmt.Sprintf("%d kept and no slot held", maxKeeping), func() bool {
		k.mu.Lock()
		n := k.kept
		k.mu.Unlock()
		return n == maxKeeping && len(s.keeping) == 0
	})
	s.follow(context.Background(), &pass{t: turn(0), keep: true, req: req, response: resp})
	<-k.started
}
