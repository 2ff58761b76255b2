package openai

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
)

func TestSend(t *testing.T) {
	var path string
	var hdr http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path, hdr = r.URL.Path, r.Header.Clone()
		_, _ = io.WriteString(w, "{}")
	}))
	defer srv.Close()
	tests := []struct {
		format   llm.Format
		base     string
		cfg      Config
		wantPath string
		wantErr  bool
	}{
		{llm.FormatChat, srv.URL + "/v1", Config{}, "/v1/chat/completions", false},
		{llm.FormatResponses, srv.URL + "/v1/", Config{Organization: "org-x"}, "/v1/responses", false},
		{llm.FormatChat, "", Config{BaseURL: srv.URL + "/base"}, "/base/chat/completions", false},
		{llm.FormatGemini, srv.URL, Config{}, "", true},
	}
	for _, tc := range tests {
		path, hdr = "", nil
		c := New(tc.cfg, srv.Client())
		reply, err := c.Send(context.Background(), &dispatch.Call{
			Target:     dispatch.Target{Provider: "openai", Upstream: "gpt-x", Format: tc.format, BaseURL: tc.base},
			Credential: dispatch.Credential{Secret: "sk-secret"}, Body: []byte(`{"model":"gpt-x"}`),
		})
		if tc.wantErr {
			if err == nil || path != "" {
				t.Errorf("%s: want an error before any request", tc.format)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.format, err)
		}
		reply.Body.Close()
		if path != tc.wantPath || hdr.Get("Authorization") != "Bearer sk-secret" || hdr.Get("OpenAI-Organization") != tc.cfg.Organization {
			t.Errorf("%s: path %s headers %v", tc.format, path, hdr)
		}
	}
}

func TestSendRetryAfterDate(t *testing.T) {
	when := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", when)
		w.WriteHeader(429)
		_, _ = io.WriteString(w, `{"error":{"message":"Rate limit reached","type":"requests"}}`)
	}))
	defer srv.Close()
	_, err := New(Config{}, srv.Client()).Send(context.Background(), &dispatch.Call{
		Target: dispatch.Target{Provider: "openai", Format: llm.FormatChat, BaseURL: srv.URL}})
	var ue *dispatch.UpstreamError
	if !errors.As(err, &ue) || ue.Status != 429 || ue.Reason != dispatch.ReasonRateLimited || ue.Message != "Rate limit reached" ||
		ue.RetryAfter < 80*time.Second || ue.RetryAfter > 91*time.Second {
		t.Fatalf("err %v %+v", err, ue)
	}
}
