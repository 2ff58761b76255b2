package gemini

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/llm"
)

func TestSend(t *testing.T) {
	var uri string
	var hdr http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		uri, hdr = r.URL.RequestURI(), r.Header.Clone()
		_, _ = io.WriteString(w, "{}")
	}))
	defer srv.Close()
	tests := []struct {
		upstream string
		stream   bool
		want     string
	}{
		{"gemini-2.5-flash", false, "/v1beta/models/gemini-2.5-flash:generateContent"},
		{"gemini-2.5-pro", true, "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"},
		{"../evil?x=1", false, "/v1beta/models/..%2Fevil%3Fx=1:generateContent"},
	}
	for _, tc := range tests {
		c := New(Config{BaseURL: srv.URL}, srv.Client())
		reply, err := c.Send(context.Background(), &dispatch.Call{
			Target:     dispatch.Target{Provider: "google", Upstream: tc.upstream, Format: llm.FormatGemini},
			Credential: dispatch.Credential{Secret: "AIza-secret"}, Body: []byte(`{"contents":[]}`), Stream: tc.stream,
		})
		if err != nil {
			t.Fatal(err)
		}
		reply.Body.Close()
		if uri != tc.want || hdr.Get("X-Goog-Api-Key") != "AIza-secret" || strings.Contains(uri, "AIza") {
			t.Errorf("%s: uri %s headers %v", tc.upstream, uri, hdr)
		}
	}
}
