package app

import (
	"io"
	"net/http"
	"testing"
)

// TestTracingSpanOutlivesRequestBuffers checks the server span's method and
// route after other connections' requests ran: the span is exported after
// the handler returns, when the server may already have handed the
// request's buffers to another connection (ReduceMemoryUsage releases them
// between requests), so its attributes must not point into them.
func TestTracingSpanOutlivesRequestBuffers(t *testing.T) {
	s, rcv := tracedStack(t, nil)
	resp, got := post(t, s, `{"model":"gpt-5-mini","messages":[{"role":"user","content":"hi"}]}`, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("post: %d %s", resp.StatusCode, got)
	}
	// New connections, while the POST's stays open and idle.
	other := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for range 20 {
		req, _ := http.NewRequest("GET", s.heddle+"/v1/models?zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", nil)
		req.Header.Set("Authorization", "Bearer "+s.key)
		r, err := other.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
	flush(t, s)
	found := false
	for _, e := range rcv.spans() {
		if e.span.Name != "POST /v1/chat/completions" {
			continue
		}
		found = true
		a := attrMap(e.span.Attributes)
		if a["http.request.method"] != "POST" || a["http.route"] != "/v1/chat/completions" {
			t.Errorf("server span method %q route %q, want POST /v1/chat/completions", a["http.request.method"], a["http.route"])
		}
	}
	if !found {
		t.Fatal("no server span for the POST")
	}
}
