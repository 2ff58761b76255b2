package upstream

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
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

// TestJSONHeaderAllocations holds a call's header to three allocations
// (the map's two and one array for every value) whatever the number of
// members; a Set per member took one more each.
func TestJSONHeaderAllocations(t *testing.T) {
	n := testing.AllocsPerRun(100, func() {
		h := JSONHeader(false, "Authorization", "Bearer sk", "Openai-Organization", "org", "X-A", "a")
		if len(h) != 5 {
			t.Fatal(h)
		}
	})
	if n > 3 {
		t.Fatalf("JSONHeader: %v allocations, want at most 3", n)
	}
}

func TestJSONHeader(t *testing.T) {
	h := JSONHeader(true, "x-api-key", "k", "Anthropic-Version", "v1", "X-Api-Key", "k2")
	want := http.Header{"Content-Type": {"application/json"}, "Accept": {"text/event-stream"},
		"X-Api-Key": {"k2"}, "Anthropic-Version": {"v1"}}
	if !reflect.DeepEqual(h, want) {
		t.Fatalf("JSONHeader = %v, want %v", h, want)
	}
	h.Add("Anthropic-Version", "v2") // values share one array: Add must not write into a neighbour
	if got := h.Get("Accept") + h.Values("Anthropic-Version")[1] + h.Get("X-Api-Key"); got != "text/event-streamv2k2" {
		t.Fatalf("after Add: %v", h)
	}
	if h := JSONHeader(false); h.Get("Accept") != "application/json" || len(h) != 2 {
		t.Fatalf("JSONHeader(false) = %v", h)
	}
}
