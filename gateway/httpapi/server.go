package httpapi

import (
	"context"
	"errors"
	"log/slog"

	"github.com/gofiber/fiber/v2"

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
	d Deps
}

// New returns a Handler.
func New(d Deps) *Handler {
	if d.Observe == nil {
		d.Observe = func(llm.Format, int, string, gateway.Served) {}
	}
	return &Handler{d: d}
}

// Mount registers every data-plane route.
func (h *Handler) Mount(app *fiber.App) {
	app.Get("/healthz", func(c *fiber.Ctx) error { return c.SendString("ok") })
	app.Get("/readyz", h.ready)
	if h.d.Metrics != nil {
		app.Get("/metrics", h.d.Metrics)
	}
	app.Post("/v1/messages", h.inference(llm.FormatAnthropic))
	app.Post("/v1/messages/count_tokens", h.countTokens)
	app.Post("/v1/chat/completions", h.inference(llm.FormatChat))
	app.Post("/v1/responses", h.inference(llm.FormatResponses))
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

// ErrorHandler renders fiber's own errors (body too large, unknown route) in
// the wire format the path implies.
func (h *Handler) ErrorHandler(c *fiber.Ctx, err error) error {
	var fe *fiber.Error
	f := formatOfPath(c.Path())
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

func formatOfPath(p string) llm.Format {
	switch {
	case len(p) >= 12 && p[:12] == "/v1/messages":
		return llm.FormatAnthropic
	case len(p) >= 13 && p[:13] == "/v1/responses":
		return llm.FormatResponses
	case len(p) >= 7 && p[:7] == "/v1beta":
		return llm.FormatGemini
	}
	return llm.FormatChat
}
