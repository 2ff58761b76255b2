package openaicompat

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
)

func loopback(t *testing.T) (*httptest.Server, *atomic.Int32, *string) {
	var n atomic.Int32
	var path string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		path = r.URL.Path + "|" + r.Header.Get("Authorization") + "|" + r.Header.Get("X-Title")
		_, _ = io.WriteString(w, "{}")
	}))
	t.Cleanup(srv.Close)
	return srv, &n, &path
}

func call(provider, targetBase, credBase string) *dispatch.Call {
	return &dispatch.Call{
		Target:     dispatch.Target{Provider: provider, Upstream: "m", Format: llm.FormatChat, BaseURL: targetBase},
		Credential: dispatch.Credential{ID: "c", Secret: "sk-compat", BaseURL: credBase},
		Body:       []byte(`{"model":"m"}`),
	}
}

func TestBaseURLPrecedence(t *testing.T) {
	srv, n, seen := loopback(t)
	c := New(Config{AllowPrivate: true, BaseURLs: map[string]string{"mine": srv.URL + "/cfg"},
		Header: http.Header{"X-Title": {"Heddle"}}}, nil)
	tests := []struct {
		name, provider, target, cred, want string
		err                                error
	}{
		{"credential wins", "mine", srv.URL + "/target", srv.URL + "/cred/", "/cred/chat/completions|Bearer sk-compat|Heddle", nil},
		{"then the target", "mine", srv.URL + "/target", "", "/target/chat/completions|Bearer sk-compat|Heddle", nil},
		{"then the config", "mine", "", "", "/cfg/chat/completions|Bearer sk-compat|Heddle", nil},
		{"unknown provider without a base", "nobody", "", "", "", ErrNoBaseURL},
		{"not http", "mine", "", "ftp://example.com", "", ErrBadBaseURL},
		{"relative", "mine", "", "/just/a/path", "", ErrBadBaseURL},
	}
	for _, tc := range tests {
		*seen = ""
		reply, err := c.Send(context.Background(), call(tc.provider, tc.target, tc.cred))
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("%s: err %v, want %v", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		reply.Body.Close()
		if *seen != tc.want {
			t.Errorf("%s: sent %q, want %q", tc.name, *seen, tc.want)
		}
	}
	if got := n.Load(); got != 3 {
		t.Errorf("server got %d requests, want 3", got)
	}
	if DefaultBaseURLs["openrouter"] == "" || DefaultBaseURLs["deepseek"] == "" {
		t.Error("built-in providers without a base URL")
	}
}

// TestRefusesPrivateAddresses: without AllowPrivate, loopback endpoints are
// refused, whether named by an IP literal, "localhost", or a name that only
// resolves to loopback (refused at dial time, on the resolved address).
func TestRefusesPrivateAddresses(t *testing.T) {
	srv, n, _ := loopback(t)
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	for _, base := range []string{
		srv.URL,                            // http://127.0.0.1:port
		"http://localhost" + port,          // refused before dialing
		"http://[::ffff:127.0.0.1]" + port, // IPv4-mapped loopback
	} {
		c := New(Config{}, srv.Client())
		_, err := c.Send(context.Background(), call("mine", "", base))
		if !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("%s: err %v, want blocked", base, err)
		}
		var ue *dispatch.UpstreamError
		if errors.As(err, &ue) {
			t.Errorf("%s: a refused dial is not an upstream answer", base)
		}
	}
	if got := n.Load(); got != 0 {
		t.Fatalf("the loopback server got %d requests", got)
	}
}

func TestDialTimeCheckOnResolvedName(t *testing.T) {
	srv, n, _ := loopback(t)
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	c := New(Config{}, nil)
	// Straight through the guarded client, past Send's host check: the name
	// is resolved, then the dialer refuses the loopback address it got.
	req, _ := http.NewRequest(http.MethodGet, "http://localhost"+port+"/", nil)
	_, err := c.hc.Do(req)
	if !errors.Is(err, ErrBlockedAddress) || n.Load() != 0 {
		t.Fatalf("err %v, requests %d", err, n.Load())
	}
}
