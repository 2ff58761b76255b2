package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/gateway/httpapi"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/llm/anthropic"
	"github.com/heddle-gw/heddle/llm/openaichat"
)

// TestCountTokensEstimate: an Anthropic count_tokens body has no
// max_tokens; when the organisation cannot reach Anthropic it gets an
// estimate, marked as one.
func TestCountTokensEstimate(t *testing.T) {
	s := newServer(t, 1<<20, &executor{err: dispatch.ErrNotConfigured})
	body := `{"model":"claude-sonnet-4-5","system":"You are terse.","messages":[{"role":"user","content":"` +
		strings.Repeat("word ", 100) + `"}]}`
	req, _ := http.NewRequest("POST", "/v1/messages/count_tokens", strings.NewReader(body))
	req.Header.Set("x-api-key", testKey)
	r := s.do(t, req)
	if r.status != 200 || r.header.Get("x-heddle-estimate") != "1" {
		t.Fatalf("count_tokens: %d %s", r.status, r.body)
	}
	var out struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.Unmarshal(r.body, &out); err != nil {
		t.Fatal(err)
	}
	// 500 bytes of user text + 14 of system + 16 per message, at 4 bytes a token.
	if out.InputTokens != (500+14+16+3)/4 {
		t.Errorf("input_tokens = %d, want %d", out.InputTokens, (500+14+16+3)/4)
	}
	if s.exec.count() != 1 {
		t.Errorf("the count was not offered to the Anthropic binding first (%d calls)", s.exec.count())
	}
}

// TestOversizedHeaderIsClientError: fiber's own 4xx errors (here a header
// too large for the read buffer) stay 4xx in the caller's format.
func TestOversizedHeaderIsClientError(t *testing.T) {
	// fiber raises these while reading a request (headers too large, a
	// malformed request line, a read timeout). Raising one from a route makes
	// the test deterministic: over a socket the server's close races the
	// client's write and the client may see a reset instead of the answer.
	s := newServer(t, 1<<20, &executor{t: t})
	for _, code := range []int{fiber.StatusRequestHeaderFieldsTooLarge, fiber.StatusBadRequest, fiber.StatusRequestTimeout} {
		s.app.Post(fmt.Sprintf("/v1/messages/raise%d", code), func(*fiber.Ctx) error { return fiber.NewError(code, "raised") })
		req, _ := http.NewRequest("POST", fmt.Sprintf("/v1/messages/raise%d", code), strings.NewReader(`{}`))
		r := s.do(t, req)
		if r.status != code || r.header.Get("x-heddle-error") != "request.invalid" {
			t.Errorf("fiber %d: status %d, x-heddle-error %q: %s", code, r.status, r.header.Get("x-heddle-error"), r.body)
		}
		if ne := parseNativeError(t, llm.FormatAnthropic, r.status, r.body); ne.Message != "raised" {
			t.Errorf("fiber %d: message %q", code, ne.Message)
		}
	}
}

// TestRoutingFailsClosed: "auto" without a usable router answers 503
// routing.unavailable in every caller format, and nothing goes upstream
// (the test executor fails the test if called).
func TestRoutingFailsClosed(t *testing.T) {
	s := newServer(t, 1<<20, &executor{t: t})
	for _, e := range endpoints {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s stream=%v", e.name, stream), func(t *testing.T) {
				r := s.do(t, post(e, e.path("auto", stream), e.body("auto", stream), testKey))
				if r.status != 503 || r.header.Get("x-heddle-error") != "routing.unavailable" {
					t.Fatalf("status %d code %q: %s", r.status, r.header.Get("x-heddle-error"), r.body)
				}
				ne := parseNativeError(t, e.format, r.status, r.body)
				if !strings.Contains(ne.Message, "no routing bundle") {
					t.Errorf("message %q does not say why", ne.Message)
				}
			})
		}
	}
}

// panicExecutor panics inside the turn, which runs on its own goroutine.
type panicExecutor struct{ *executor }

func (panicExecutor) Run(context.Context, dispatch.Meta, dispatch.Plan, *dispatch.Operation, dispatch.StreamWriter) (*dispatch.Result, error) {
	panic("boom")
}

// TestPanicInTurnIsRecovered: a panic while serving a turn becomes a 500
// in the caller's format with an error id, and the process lives on.
func TestPanicInTurnIsRecovered(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	svc, err := gateway.New(gateway.Config{BaselineModel: "claude-sonnet-4-5"}, gateway.Deps{
		Catalog: cat, Executor: panicExecutor{&executor{}}, Recorder: &recorder{}, Routers: gateway.StaticRouters{},
		Logger: logger, Classify: httpapi.Classify,
		Codecs: gateway.Codecs{llm.FormatAnthropic: anthropic.New(), llm.FormatChat: openaichat.New()},
	})
	if err != nil {
		t.Fatal(err)
	}
	h := httpapi.New(httpapi.Deps{Service: svc, Auth: staticAuth{}, Catalog: cat, Logger: logger})
	app := fiber.New(fiber.Config{ErrorHandler: h.ErrorHandler, DisableStartupMessage: true})
	h.Mount(app)
	for i := 0; i < 2; i++ {
		req, _ := http.NewRequest("POST", "/v1/chat/completions", strings.NewReader(`{"model":"gpt-5-mini","messages":[{"role":"user","content":"hi"}]}`))
		req.Header.Set("Authorization", "Bearer "+testKey)
		resp, err := app.Test(req, 5000)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 500 || resp.Header.Get("x-heddle-error") != "internal.error" || !strings.Contains(string(body), "internal error req_") {
			t.Fatalf("status %d %q: %s", resp.StatusCode, resp.Header.Get("x-heddle-error"), body)
		}
	}
	if !strings.Contains(logs.String(), `"msg":"panic recovered"`) || !strings.Contains(logs.String(), "boom") {
		t.Errorf("the panic was not logged with its error id:\n%s", logs.String())
	}
}
