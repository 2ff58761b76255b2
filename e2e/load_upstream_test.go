package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// pacedUpstream is a fake OpenAI Chat Completions upstream over loopback
// TCP for load runs: a non-streaming answer at once, a stream of frames
// frames spaced gap apart (its first frame at once); a body containing
// "upstream-fails" gets a 500, so Heddle serves nothing and records no
// cost. It keeps no record of
// requests, so it costs the same for the direct baseline and for Heddle.
type pacedUpstream struct {
	URL    string
	frames int
	gap    time.Duration
}

func newPacedUpstream(tb testing.TB, frames int, gap time.Duration) *pacedUpstream {
	u := &pacedUpstream{frames: frames, gap: gap}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(u.serve))
	srv.Config.MaxHeaderBytes = 1 << 16
	srv.Start()
	tb.Cleanup(srv.Close)
	u.URL = srv.URL
	return u
}

const pacedAnswer = `{"id":"chatcmpl-load","object":"chat.completion","created":1,"model":"gpt-5-mini","choices":[{"index":0,"message":{"role":"assistant","content":"Hello from the load upstream"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`

func (u *pacedUpstream) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	if strings.Contains(string(body), "upstream-fails") { // a probe that must cost nothing
		http.Error(w, `{"error":{"message":"scripted failure","type":"server_error"}}`, http.StatusInternalServerError)
		return
	}
	if !strings.Contains(string(body), `"stream":true`) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, pacedAnswer)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	for i := range u.frames {
		if i > 0 && u.gap > 0 {
			select {
			case <-time.After(u.gap):
			case <-r.Context().Done():
				return
			}
		}
		role := ""
		if i == 0 {
			role = `"role":"assistant",`
		}
		fmt.Fprintf(w, "data: {\"id\":\"chatcmpl-load\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-5-mini\",\"choices\":[{\"index\":0,\"delta\":{%s\"content\":\"tok%d \"},\"finish_reason\":null}]}\n\n", role, i)
		if fl != nil {
			fl.Flush()
		}
	}
	io.WriteString(w, "data: {\"id\":\"chatcmpl-load\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"gpt-5-mini\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5,\"total_tokens\":15}}\n\ndata: [DONE]\n\n")
}
