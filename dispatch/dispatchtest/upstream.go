package dispatchtest

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/llm"
)

// MaxStall bounds how long a stalled answer waits for its client to leave.
const MaxStall = 30 * time.Second

// Upstream is a fake provider endpoint on loopback. It answers OpenAI Chat
// Completions (any path ending in /chat/completions), Anthropic Messages
// (any path ending in /v1/messages), OpenAI Responses (any path ending in
// /responses), OpenAI embeddings (any path ending in /embeddings) and Gemini (/v1beta/models/{model}:generateContent, and
// :streamGenerateContent for a stream), streaming or not as the request asks,
// and plays one scripted Step per request. It records every request it
// received.
type Upstream struct {
	// URL is the server's root, e.g. http://127.0.0.1:PORT.
	URL string

	srv     *httptest.Server
	closing chan struct{}
	once    sync.Once

	mu      sync.Mutex
	scripts map[string][]Step
	reqs    []Request
}

// Request is one request the fake upstream received.
type Request struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   []byte
	Format llm.Format
	Model  string // the body's model field (Gemini: the URL's model)
	Stream bool   // the body's stream field (Gemini: the URL's method)
}

// NewUpstream starts a fake upstream, closed when t ends.
func NewUpstream(t testing.TB) *Upstream {
	u := &Upstream{closing: make(chan struct{}), scripts: map[string][]Step{}}
	u.srv = httptest.NewServer(http.HandlerFunc(u.serve))
	u.URL = u.srv.URL
	if t != nil {
		t.Cleanup(u.Close)
	}
	return u
}

// Close stops the server, releasing stalled answers first.
func (u *Upstream) Close() {
	u.once.Do(func() {
		close(u.closing)
		u.srv.CloseClientConnections()
		u.srv.Close()
	})
}

// Script queues steps for requests naming model ("" matches any model when
// the model has no queue of its own). A request with no step queued gets
// OK("").
func (u *Upstream) Script(model string, steps ...Step) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.scripts[model] = append(u.scripts[model], steps...)
}

// Requests returns every request received so far, in order.
func (u *Upstream) Requests() []Request {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]Request(nil), u.reqs...)
}

// Models returns the model of every request received so far, in order.
func (u *Upstream) Models() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := make([]string, len(u.reqs))
	for i, r := range u.reqs {
		out[i] = r.Model
	}
	return out
}

// Pending is how many scripted steps are still unplayed.
func (u *Upstream) Pending() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	n := 0
	for _, s := range u.scripts {
		n += len(s)
	}
	return n
}

func (u *Upstream) next(model string) Step {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, k := range []string{model, ""} {
		if q := u.scripts[k]; len(q) > 0 {
			u.scripts[k] = q[1:]
			return q[0]
		}
	}
	return Step{}
}

func (u *Upstream) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var head struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	_ = json.Unmarshal(body, &head)
	rec := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(),
		Body: body, Model: head.Model, Stream: head.Stream}
	var wire wireFormat
	embeddings := strings.HasSuffix(r.URL.Path, "/embeddings")
	switch {
	case embeddings, strings.HasSuffix(r.URL.Path, "/chat/completions"):
		rec.Format, wire = llm.FormatChat, chatWire{}
	case strings.HasSuffix(r.URL.Path, "/v1/messages"), strings.HasSuffix(r.URL.Path, "/v1/messages/count_tokens"):
		rec.Format, wire = llm.FormatAnthropic, anthropicWire{}
	case strings.HasSuffix(r.URL.Path, "/responses"):
		rec.Format, wire = llm.FormatResponses, responsesWire{}
	default:
		if model, stream, ok := geminiRoute(r.URL.Path); ok {
			rec.Format, wire = llm.FormatGemini, geminiWire{}
			head.Model, head.Stream = model, stream
			rec.Model, rec.Stream = model, stream
		}
	}
	u.mu.Lock()
	u.reqs = append(u.reqs, rec)
	u.mu.Unlock()
	if wire == nil {
		http.Error(w, `{"error":{"message":"no such route"}}`, http.StatusNotFound)
		return
	}
	st := u.next(head.Model)
	if st.Reset {
		resetConn(w)
		return
	}
	if st.Delay > 0 && !u.wait(r, st.Delay) {
		return
	}
	if st.Status >= 300 {
		if st.RetryAfter != "" {
			w.Header().Set("Retry-After", st.RetryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(st.Status)
		_, _ = w.Write(wire.errorBody(st))
		return
	}
	if rec.Format == llm.FormatAnthropic && strings.HasSuffix(r.URL.Path, "/count_tokens") {
		// Anthropic's count_tokens: the prompt's bytes / 4, like a tokenizer would roughly say.
		u.whole(w, r, []byte(`{"input_tokens":`+itoa(len(body)/4)+`}`), st)
		return
	}
	if embeddings {
		u.whole(w, r, embeddingBody(body, st, head.Model), st)
		return
	}
	if head.Stream {
		u.stream(w, r, wire, st, head.Model)
		return
	}
	u.whole(w, r, wire.body(st, head.Model), st)
}

func (u *Upstream) whole(w http.ResponseWriter, r *http.Request, body []byte, st Step) {
	w.Header().Set("Content-Type", "application/json")
	if st.Fault == FaultNone {
		_, _ = w.Write(body)
		return
	}
	w.Header().Set("Content-Length", itoa(len(body)))
	_, _ = w.Write(body[:len(body)/2])
	w.(http.Flusher).Flush()
	u.fault(w, r, st.Fault)
}

func (u *Upstream) stream(w http.ResponseWriter, r *http.Request, wire wireFormat, st Step, model string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl := w.(http.Flusher)
	fl.Flush()
	for i, f := range wire.frames(st, model) {
		if st.Fault != FaultNone && i == st.After {
			u.fault(w, r, st.Fault)
			return
		}
		if _, err := w.Write(f); err != nil {
			return
		}
		fl.Flush()
	}
}

// fault plays a stall (silence until the client leaves) or a cut.
func (u *Upstream) fault(w http.ResponseWriter, r *http.Request, f Fault) {
	if f == FaultStall {
		u.wait(r, MaxStall)
		return
	}
	panic(http.ErrAbortHandler)
}

// wait sleeps d; it reports false when the client left or the server closes.
func (u *Upstream) wait(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
	case <-u.closing:
	}
	return false
}

// resetConn drops the connection before any response byte, with a TCP reset.
func resetConn(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}

// wireFormat renders answers in one provider's wire format.
type wireFormat interface {
	body(st Step, model string) []byte
	frames(st Step, model string) [][]byte
	errorBody(st Step) []byte
}
