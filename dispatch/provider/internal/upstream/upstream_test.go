package upstream

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{" 1.5 ", 1500 * time.Millisecond},
		{"0", 0},
		{"-4", 0},
		{"999999", 0},
		{now.Add(7 * time.Second).Format(http.TimeFormat), 7 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
		{"soon", 0},
	}
	for _, tc := range tests {
		if got := RetryAfter(tc.in, now); got != tc.want {
			t.Errorf("RetryAfter(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestMessage(t *testing.T) {
	long := strings.Repeat("x", 600)
	tests := []struct{ body, want string }{
		{`{"error":{"message":"model not found","type":"invalid_request_error"}}`, "model not found"},
		{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "Overloaded"},
		{`{"error":{"code":400,"message":"API key not valid","status":"INVALID_ARGUMENT"}}`, "API key not valid"},
		{`{"error":"plain string"}`, "plain string"},
		{`{"message":"top level"}`, "top level"},
		{"  upstream exploded \n", "upstream exploded"},
		{long, long[:512]},
	}
	for _, tc := range tests {
		if got := Message([]byte(tc.body)); got != tc.want {
			t.Errorf("Message(%.40q) = %q, want %q", tc.body, got, tc.want)
		}
	}
}

func TestPostMapsStatus(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "2")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"error":{"message":"try later"}}`))
	}))
	defer srv.Close()
	_, err := Post(context.Background(), srv.Client(), "p", srv.URL+"/x", http.Header{}, []byte("{}"))
	var ue *dispatch.UpstreamError
	if !errors.As(err, &ue) {
		t.Fatalf("err %v", err)
	}
	want := dispatch.UpstreamError{Provider: "p", Status: 503, Reason: dispatch.ReasonUpstream5xx, Message: "try later", RetryAfter: 2 * time.Second}
	if *ue != want {
		t.Fatalf("got %+v, want %+v", *ue, want)
	}
}

func TestPostTransportErrorHidesURL(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL + "/v1?key=secret-in-query"
	srv.Close()
	_, err := Post(context.Background(), http.DefaultClient, "p", url, http.Header{}, nil)
	if err == nil || strings.Contains(err.Error(), "secret-in-query") || !strings.HasPrefix(err.Error(), "p: send:") {
		t.Fatalf("err %v", err)
	}
	var ue *dispatch.UpstreamError
	if errors.As(err, &ue) {
		t.Fatalf("a transport error is not an upstream answer")
	}
}
