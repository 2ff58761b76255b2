package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestInterruptAnswersWaitingTurns: Interrupt ends a turn waiting on its
// upstream with 503 dispatch.shutting_down in the caller's own error shape
// (Retry-After 1), records it, and returns once it ended; a turn that
// arrives afterwards is refused the same way at once.
func TestInterruptAnswersWaitingTurns(t *testing.T) {
	exec := &executor{entered: make(chan struct{}, 2)}
	s := newServer(t, 1<<20, exec)
	send := func() reply {
		req, _ := http.NewRequest("POST", "/v1/messages", strings.NewReader(
			`{"model":"claude-sonnet-4-5","max_tokens":16,"messages":[{"role":"user","content":"wait"}]}`))
		req.Header.Set("x-api-key", testKey)
		req.Header.Set("Content-Type", "application/json")
		return s.doOverNetwork(t, req)
	}
	got := make(chan reply, 1)
	go func() { got <- send() }()
	<-exec.entered
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.h.Interrupt(ctx); err != nil {
		t.Fatalf("Interrupt: %v", err)
	}
	for i, r := range []reply{<-got, send()} {
		if r.status != 503 || r.header.Get("x-heddle-error") != "dispatch.shutting_down" || r.header.Get("Retry-After") != "1" {
			t.Fatalf("reply %d: %d %v %s", i, r.status, r.header, r.body)
		}
		var shape struct {
			Type  string `json:"type"`
			Error struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(r.body, &shape); err != nil || shape.Type != "error" || shape.Error.Type != "overloaded_error" ||
			!strings.Contains(shape.Error.Message, "shutting down") {
			t.Errorf("reply %d is not Anthropic's error shape: %s", i, r.body)
		}
	}
	rows := s.rec.rows()
	if len(rows) != 2 {
		t.Fatalf("request rows: %+v", rows)
	}
	for _, r := range rows {
		if r.Status != 503 || r.ErrorCode != "dispatch.shutting_down" {
			t.Errorf("request row %+v", r)
		}
	}
}
