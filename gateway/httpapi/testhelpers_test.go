package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/gateway/httpapi"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/anthropic"
	"github.com/heddle-gw/heddle/llm/gemini"
	"github.com/heddle-gw/heddle/llm/openaichat"
	"github.com/heddle-gw/heddle/llm/responses"
)

// testKey is the one rk_ key the static authenticator accepts.
const testKey = "rk_testKeyForBadInput0123456789abcdef"

// limitsDownKey is a good key whose limits cannot be read (the plan store
// is down).
const limitsDownKey = "rk_limitsDownKeyForTests0123456789abc"

// staticAuth accepts testKey only, with the inference scope.
type staticAuth struct{}

func (staticAuth) Authenticate(_ context.Context, presented string) (gateway.Caller, error) {
	if presented == limitsDownKey {
		return gateway.Caller{}, fmt.Errorf("test auth: plan defaults: %w", credits.ErrUnavailable)
	}
	if presented != testKey {
		return gateway.Caller{}, fmt.Errorf("test auth: unknown key: %w", gateway.ErrUnauthorized)
	}
	return gateway.Caller{OrgID: "org_test", KeyID: "key_test", KeyPrefix: "rk_testKeyF", Scopes: []string{"inference"}}, nil
}

// executor stands in for the dispatch boundary: it counts calls and fails
// every one with err. With t set, any call fails the test (bad input must
// never reach an upstream).
// With entered set, a call signals it and waits for its context to end,
// failing with the context's cause (an upstream that never answers).
type executor struct {
	t       testing.TB
	err     error
	entered chan struct{}
	mu      sync.Mutex
	calls   int
}

func (e *executor) Run(ctx context.Context, _ dispatch.Meta, _ dispatch.Plan, op *dispatch.Operation, _ dispatch.StreamWriter) (*dispatch.Result, error) {
	e.mu.Lock()
	e.calls++
	e.mu.Unlock()
	if e.t != nil {
		e.t.Errorf("the upstream was called for a %s request", op.Inbound)
	}
	if e.entered != nil {
		e.entered <- struct{}{}
		<-ctx.Done()
		return nil, fmt.Errorf("test upstream: %w", context.Cause(ctx))
	}
	return nil, e.err
}

func (e *executor) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls
}

// recorder keeps every analytics row it is given.
type recorder struct {
	mu       sync.Mutex
	requests []analytics.Request
	attempts []analytics.Attempt
}

func (r *recorder) RecordAttempt(a analytics.Attempt) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.attempts = append(r.attempts, a)
}

func (r *recorder) RecordRequest(q analytics.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests = append(r.requests, q)
}

func (r *recorder) rows() []analytics.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]analytics.Request(nil), r.requests...)
}

// server is the data plane mounted on a fiber app the way app.newServer
// mounts it, over a real gateway.Service with the real codecs and the
// embedded catalog.
type server struct {
	app  *fiber.App
	h    *httpapi.Handler
	exec *executor
	rec  *recorder
}

// newServer builds a server with a bodyLimit; exec decides what the
// upstream does.
func newServer(t testing.TB, bodyLimit int, exec *executor) *server {
	t.Helper()
	s := newServerOver(t, bodyLimit, exec)
	s.exec = exec
	return s
}

// newServerOver builds a server whose upstream is up.
func newServerOver(t testing.TB, bodyLimit int, up gateway.Executor) *server {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	rec := &recorder{}
	svc, err := gateway.New(gateway.Config{DefaultAlpha: 0.5, BaselineModel: "claude-sonnet-4-5"}, gateway.Deps{
		Catalog: cat,
		Codecs: gateway.Codecs{
			llm.FormatAnthropic: anthropic.New(), llm.FormatChat: openaichat.New(),
			llm.FormatResponses: responses.New(), llm.FormatGemini: gemini.New(),
		},
		Executor: up, Recorder: rec, Routers: gateway.StaticRouters{}, Logger: logger, Classify: httpapi.Classify,
	})
	if err != nil {
		t.Fatal(err)
	}
	h := httpapi.New(httpapi.Deps{Service: svc, Auth: staticAuth{}, Catalog: cat, Logger: logger})
	app := fiber.New(fiber.Config{BodyLimit: bodyLimit, ErrorHandler: h.ErrorHandler, DisableStartupMessage: true})
	h.Mount(app)
	return &server{app: app, h: h, rec: rec}
}

// reply is a response read whole.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// do sends req through app.Test.
func (s *server) do(t testing.TB, req *http.Request) reply {
	t.Helper()
	resp, err := s.app.Test(req, 10_000)
	if err != nil {
		t.Fatalf("app.Test: %v", err)
	}
	return readReply(t, resp)
}

// readReply reads and closes resp.
func readReply(t testing.TB, resp *http.Response) reply {
	t.Helper()
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: body}
}

// doOverNetwork sends req to the app served on a loopback listener. It is
// for requests app.Test cannot carry: when fasthttp refuses a request while
// reading it (a body over the limit), app.Test returns the read error
// instead of the response the server wrote.
func (s *server) doOverNetwork(t testing.TB, req *http.Request) reply {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.app.Listener(ln) }()
	t.Cleanup(func() { _ = s.app.Shutdown() })
	req.RequestURI = ""
	req.URL.Scheme, req.URL.Host = "http", ln.Addr().String()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", req.URL.Path, err)
	}
	return readReply(t, resp)
}

// nativeError is an error body as its format's clients read it.
type nativeError struct {
	Message string
	Kind    string // Anthropic error.type, OpenAI error.type, Gemini error.status
	Code    string // OpenAI error.code ("" for null), Gemini error.code
}

// parseNativeError decodes body in format f's own error shape and fails the
// test when it is not exactly that shape: Anthropic
// {"type":"error","error":{"type","message"}}, OpenAI
// {"error":{"message","type","param","code"}}, Gemini
// {"error":{"code","message","status"}} (plus optional details).
func parseNativeError(t testing.TB, f llm.Format, status int, body []byte) nativeError {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		t.Fatalf("%s error body is not a JSON object: %v\n%s", f, err, body)
	}
	var inner map[string]json.RawMessage
	if err := json.Unmarshal(top["error"], &inner); err != nil {
		t.Fatalf("%s error body has no error object: %s", f, body)
	}
	str := func(raw json.RawMessage) string {
		var s string
		if len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatalf("%s: %s is not a string in %s", f, raw, body)
			}
		}
		return s
	}
	var out nativeError
	switch f {
	case llm.FormatAnthropic:
		requireKeys(t, f, body, top, "type", "error")
		requireKeys(t, f, body, inner, "type", "message")
		if str(top["type"]) != "error" {
			t.Errorf("anthropic error body type = %s, want \"error\"", top["type"])
		}
		out = nativeError{Message: str(inner["message"]), Kind: str(inner["type"])}
	case llm.FormatChat, llm.FormatResponses:
		requireKeys(t, f, body, top, "error")
		requireKeys(t, f, body, inner, "message", "type", "param", "code")
		out = nativeError{Message: str(inner["message"]), Kind: str(inner["type"]), Code: str(inner["code"])}
	case llm.FormatGemini:
		requireKeys(t, f, body, top, "error")
		if _, ok := inner["details"]; ok {
			delete(inner, "details")
		}
		requireKeys(t, f, body, inner, "code", "message", "status")
		var code int
		if err := json.Unmarshal(inner["code"], &code); err != nil || code != status {
			t.Errorf("gemini error.code = %s, want the HTTP status %d", inner["code"], status)
		}
		out = nativeError{Message: str(inner["message"]), Kind: str(inner["status"]), Code: fmt.Sprint(code)}
	}
	if strings.TrimSpace(out.Message) == "" {
		t.Errorf("%s error body has an empty message: %s", f, body)
	}
	return out
}

// requireKeys fails unless obj has exactly keys.
func requireKeys(t testing.TB, f llm.Format, body []byte, obj map[string]json.RawMessage, keys ...string) {
	t.Helper()
	if len(obj) != len(keys) {
		t.Errorf("%s error body members = %d, want exactly %v: %s", f, len(obj), keys, body)
	}
	for _, k := range keys {
		if _, ok := obj[k]; !ok {
			t.Errorf("%s error body lacks %q: %s", f, k, body)
		}
	}
}
