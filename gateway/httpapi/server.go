package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/llm"
)

// errTooLarge is the body-size limit, as seen by the error table.
var errTooLarge = errors.New("httpapi: request body too large")

// Deps are the collaborators of the data-plane handlers.
type Deps struct {
	Service *gateway.Service
	Auth    gateway.Authenticator
	Catalog *catalog.Catalog
	Logger  *slog.Logger
	// Ready reports the state of the stores the data plane uses (/readyz);
	// nil reports ready with no checks.
	Ready func(ctx context.Context) Readiness
	// Metrics serves /metrics; nil leaves the route out.
	Metrics fiber.Handler
	// Observe is called after every data-plane request with its outcome.
	Observe func(format llm.Format, status int, code string, served gateway.Served)
	// Begin, when set, is called with each authenticated turn (its request
	// id assigned) and the request's user context before the turn runs; the
	// turn runs on the values of the context it returns (never on its
	// cancellation: the handler cancels the turn itself). nil runs turns on
	// a fresh background context.
	Begin func(ctx context.Context, t *gateway.Turn) context.Context
}

// Handler mounts the data plane on a fiber app.
type Handler struct {
	d      Deps
	flight flight
}

// New returns a Handler.
func New(d Deps) *Handler {
	if d.Observe == nil {
		d.Observe = func(llm.Format, int, string, gateway.Served) {}
	}
	return &Handler{d: d}
}

// Mount registers every data-plane route, and makes the errors the HTTP
// server raises while reading a request (see guardReads) answerable in the
// caller's format by the app's ErrorHandler.
func (h *Handler) Mount(app *fiber.App) {
	guardReads(app.Server())
	app.Get("/healthz", func(c *fiber.Ctx) error { return c.SendString("ok") })
	app.Get("/readyz", h.ready)
	if h.d.Metrics != nil {
		app.Get("/metrics", h.d.Metrics)
	}
	app.Post("/v1/messages", h.inference(llm.FormatAnthropic))
	app.Post("/v1/messages/count_tokens", h.countTokens)
	app.Post("/v1/chat/completions", h.inference(llm.FormatChat))
	app.Post("/v1/responses", h.inference(llm.FormatResponses))
	app.Post("/v1/embeddings", h.embeddings)
	app.Post("/v1beta/models/:call", h.gemini)
	app.Post("/v1/route", h.route)
	app.Get("/v1/models", h.models)
	app.Get("/v1beta/models", h.geminiModels)
}

// Readiness is the answer of /readyz: Status is ReadyOK, ReadyDegraded (an
// optional store is down: still served, 200) or ReadyDown (a store the data
// plane cannot do without is down: 503). Checks maps each store to "ok" or
// what is wrong with it (no secrets: the caller redacts).
type Readiness struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks"`
}

// Readiness states.
const (
	ReadyOK       = "ok"
	ReadyDegraded = "degraded"
	ReadyDown     = "down"
)

func (h *Handler) ready(c *fiber.Ctx) error {
	r := Readiness{Status: ReadyOK, Checks: map[string]string{}}
	if h.d.Ready != nil {
		r = h.d.Ready(c.UserContext())
	}
	if r.Status == ReadyDown {
		h.d.Logger.WarnContext(c.UserContext(), "not ready", "checks", r.Checks)
		c.Status(fiber.StatusServiceUnavailable)
	}
	return c.JSON(r)
}

// ErrorHandler renders fiber's own errors (body too large, headers too
// large, malformed HTTP, unknown route) in the wire format the request
// implies (formatOf).
func (h *Handler) ErrorHandler(c *fiber.Ctx, err error) error {
	var fe *fiber.Error
	f := formatOf(c)
	if errors.As(err, &fe) {
		switch fe.Code {
		case fiber.StatusRequestEntityTooLarge:
			return h.writeError(c, f, errTooLarge)
		case fiber.StatusNotFound, fiber.StatusMethodNotAllowed:
			e := apiError{Status: fe.Code, Code: "request.not_found", Kind: "not_found_error", Message: "no route for " + c.Method() + " " + c.Path()}
			return h.sendError(c, f, e)
		}
		if fe.Code >= 400 && fe.Code < 500 {
			// Malformed HTTP, headers too large, a read timeout: the
			// client's fault, answered as such.
			return h.sendError(c, f, apiError{Status: fe.Code, Code: "request.invalid", Kind: "invalid_request_error", Message: fe.Message})
		}
	}
	id := gateway.NewRequestID()
	h.d.Logger.ErrorContext(c.UserContext(), "unhandled error", "err", err, "error_id", id)
	return h.sendError(c, f, apiError{Status: 500, Code: "internal.error", Kind: "api_error", Message: "internal error " + id})
}

// formatOf is the wire format a request's errors come in, as its route
// would choose it: the path, then for /v1/route its ?format= and for
// /v1/route and /v1/models the anthropic-version header. The admin API and
// unknown paths get OpenAI's shape.
func formatOf(c *fiber.Ctx) llm.Format {
	p := c.Path()
	switch {
	case strings.HasPrefix(p, "/v1/messages"):
		return llm.FormatAnthropic
	case strings.HasPrefix(p, "/v1/responses"):
		return llm.FormatResponses
	case strings.HasPrefix(p, "/v1beta"):
		return llm.FormatGemini
	case p == "/v1/route":
		if f := llm.Format(c.Query("format")); f.Valid() {
			return f
		}
		fallthrough
	case p == "/v1/models":
		if c.Get("anthropic-version") != "" {
			return llm.FormatAnthropic
		}
	}
	return llm.FormatChat
}

// guardReads wraps the server's error handler for errors raised while a
// request is read, before fiber routes it:
//   - A header that cannot be read (too large, malformed) leaves fasthttp's
//     request reset, so the path that picks the error format is gone; it is
//     restored from the request line, which fasthttp quotes in its error
//     text. The other headers stay unknown: such an error's format is the
//     one the path alone implies.
//   - That error text quotes the raw headers (API keys included), so it is
//     replaced before it can reach a response or a log.
//   - Multipart bodies are not pre-parsed (fasthttp resets the request when
//     that fails); the data plane reads JSON and rejects them in its own
//     shape.
func guardReads(srv *fasthttp.Server) {
	srv.DisablePreParseMultipartForm = true
	next := srv.ErrorHandler
	srv.ErrorHandler = func(fctx *fasthttp.RequestCtx, err error) {
		msg := err.Error()
		contents := strings.Index(msg, "contents: ")
		if contents < 0 {
			next(fctx, err)
			return
		}
		if method, target, ok := requestLine(msg[contents+len("contents: "):]); ok {
			fctx.Request.Header.SetMethod(method)
			fctx.Request.SetRequestURI(target)
		}
		var small *fasthttp.ErrSmallBuffer
		if errors.As(err, &small) {
			next(fctx, &fasthttp.ErrSmallBuffer{}) // fiber answers 431 for the type
			return
		}
		next(fctx, fiber.NewError(fiber.StatusBadRequest, "malformed HTTP request headers"))
	}
}

// requestLine reads method and target from the start of quoted, the Go
// quoted request buffer in a fasthttp header error.
func requestLine(quoted string) (method, target string, ok bool) {
	q, err := strconv.QuotedPrefix(quoted)
	if err != nil {
		return "", "", false
	}
	raw, err := strconv.Unquote(q)
	if err != nil {
		return "", "", false
	}
	line, _, _ := strings.Cut(raw, "\r\n")
	line, _, _ = strings.Cut(line, "\r")
	method, rest, ok := strings.Cut(line, " ")
	target, _, _ = strings.Cut(rest, " ")
	if !ok || method == "" || !strings.HasPrefix(target, "/") {
		return "", "", false
	}
	return method, target, true
}
