package anthropic

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
)

type seen struct {
	path   string
	header http.Header
	body   string
}

func server(t *testing.T, status int, reply string, hdr map[string]string) (*httptest.Server, *seen) {
	s := &seen{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.path, s.header, s.body = r.URL.RequestURI(), r.Header.Clone(), string(b)
		for k, v := range hdr {
			w.Header().Set(k, v)
		}
		w.WriteHeader(status)
		_, _ = io.WriteString(w, reply)
	}))
	t.Cleanup(srv.Close)
	return srv, s
}

func TestSend(t *testing.T) {
	tests := []struct {
		name        string
		stream      bool
		callHeader  http.Header
		wantVersion string
		wantBeta    []string
		wantAccept  string
	}{
		{"defaults", false, nil, DefaultVersion, nil, "application/json"},
		{"caller's version and betas pass through", true,
			http.Header{"Anthropic-Version": {"2024-01-01"}, "Anthropic-Beta": {"a-1", "b-2"}, "X-Other": {"dropped"}},
			"2024-01-01", []string{"a-1", "b-2"}, "text/event-stream"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, s := server(t, 200, `{"ok":true}`, nil)
			c := New(Config{}, srv.Client())
			call := &dispatch.Call{
				Target:     dispatch.Target{Provider: "anthropic", Upstream: "claude-x", Format: llm.FormatAnthropic, BaseURL: srv.URL + "/"},
				Credential: dispatch.Credential{ID: "c1", Secret: "sk-ant-secret"},
				Body:       []byte(`{"model":"claude-x"}`), Stream: tc.stream, Header: tc.callHeader,
			}
			reply, err := c.Send(context.Background(), call)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(reply.Body)
			reply.Body.Close()
			if reply.Status != 200 || string(body) != `{"ok":true}` {
				t.Errorf("reply %d %s", reply.Status, body)
			}
			if s.path != "/v1/messages" || s.body != `{"model":"claude-x"}` {
				t.Errorf("sent %s %s", s.path, s.body)
			}
			h := s.header
			if h.Get("X-Api-Key") != "sk-ant-secret" || h.Get("Authorization") != "" || h.Get("Anthropic-Version") != tc.wantVersion ||
				strings.Join(h.Values("Anthropic-Beta"), ",") != strings.Join(tc.wantBeta, ",") ||
				h.Get("Content-Type") != "application/json" || h.Get("Accept") != tc.wantAccept || h.Get("X-Other") != "" {
				t.Errorf("headers %v", h)
			}
		})
	}
}

func TestSendErrors(t *testing.T) {
	srv, _ := server(t, 529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, map[string]string{"Retry-After": "4"})
	c := New(Config{BaseURL: srv.URL}, srv.Client())
	call := &dispatch.Call{Target: dispatch.Target{Provider: "anthropic", Upstream: "m"}, Credential: dispatch.Credential{Secret: "sk-ant-secret"}}
	_, err := c.Send(context.Background(), call)
	var ue *dispatch.UpstreamError
	if !errors.As(err, &ue) {
		t.Fatalf("err %v", err)
	}
	want := dispatch.UpstreamError{Provider: "anthropic", Status: 529, Reason: dispatch.ReasonUpstream5xx, Message: "Overloaded", RetryAfter: 4 * time.Second}
	if *ue != want {
		t.Fatalf("got %+v", *ue)
	}
	srv.Close()
	_, err = c.Send(context.Background(), call)
	if err == nil || errors.As(err, &ue) || strings.Contains(err.Error(), "sk-ant-secret") {
		t.Fatalf("transport error %v", err)
	}
}
