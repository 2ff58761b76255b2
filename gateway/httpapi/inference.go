package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/llm"
)

// forwardedHeaders are the caller headers the pipeline reads.
var forwardedHeaders = []string{
	"Anthropic-Version", "Anthropic-Beta", "X-Claude-Code-Session-Id", "Session-Id",
	"X-Heddle-Session", "Idempotency-Key", "Cache-Control", gateway.HeaderUser, gateway.HeaderTags,
}

func (h *Handler) inference(f llm.Format) fiber.Handler {
	return func(c *fiber.Ctx) error { return h.serveTurn(c, f, "", false) }
}

// gemini parses "/v1beta/models/{model}:generateContent|streamGenerateContent".
func (h *Handler) gemini(c *fiber.Ctx) error {
	call := c.Params("call")
	model, method, ok := strings.Cut(call, ":")
	if !ok || model == "" {
		return h.sendError(c, llm.FormatGemini, apiError{404, "request.not_found", "not_found_error", "expected models/{model}:generateContent", 0})
	}
	switch method {
	case "generateContent":
		return h.serveTurn(c, llm.FormatGemini, model, false)
	case "streamGenerateContent":
		return h.serveTurn(c, llm.FormatGemini, model, true)
	case "countTokens":
		return h.countTokens(c)
	case "embedContent", "batchEmbedContents":
		return h.embed(c, llm.FormatGemini, model)
	}
	return h.sendError(c, llm.FormatGemini, apiError{404, "request.not_found", "not_found_error", "unknown method " + method, 0})
}

func (h *Handler) serveTurn(c *fiber.Ctx, f llm.Format, pathModel string, pathStream bool) error {
	caller, err := h.d.Auth.Authenticate(c.UserContext(), presentedKey(c))
	if err != nil {
		return h.writeError(c, f, authError(err))
	}
	t := &gateway.Turn{
		RequestID: gateway.NewRequestID(), Received: time.Now(), Format: f,
		Body:   append([]byte(nil), c.Body()...),
		Header: http.Header{}, PathModel: strings.Clone(pathModel), PathStream: pathStream, Caller: caller,
	}
	for _, k := range forwardedHeaders {
		if v := c.Get(k); v != "" {
			t.Header.Set(k, strings.Clone(v)) // fiber reuses the buffer c.Get points into
		}
	}
	c.Set("x-heddle-request-id", t.RequestID)
	base := context.Background()
	if h.d.Begin != nil {
		base = context.WithoutCancel(h.d.Begin(c.UserContext(), t))
	}
	if !mayStream(t.Body, pathStream) {
		// A turn served in the handler's goroutine learns nothing of its
		// client leaving (fasthttp does not tell): it needs only the turn's
		// own context, which shutdown interrupts (see Interrupt).
		turnCtx, stop := context.WithCancelCause(base)
		end := h.flight.begin(stop)
		defer end()
		defer stop(nil)
		return h.serveInline(turnCtx, c, f, t)
	}
	// ctx ends when the client leaves; the turn's own context also ends
	// when shutdown interrupts it (see Interrupt), while the bridge can
	// still write the stream's error event.
	ctx, cancel := context.WithCancel(base)
	turnCtx, stop := context.WithCancelCause(ctx)
	// end is called once the turn was recorded and its answer handed to
	// the connection (for a stream: written and flushed).
	end := h.flight.begin(stop)
	b := newBridge(ctx)
	go func() {
		defer stop(nil)
		b.run(turnCtx, h.d.Service, t)
	}()

	var served gateway.Served
	select {
	case served = <-b.commit:
	case err := <-b.done:
		select {
		case served = <-b.commit:
			b.done <- err // committed and already finished: replay below
		default:
			cancel()
			defer end()
			h.d.Observe(f, classify(err).Status, classify(err).Code, gateway.Served{})
			return h.writeError(c, f, err)
		}
	}
	setServedHeaders(c, served)
	if !served.Stream {
		defer cancel()
		var body []byte
		for bp := range b.chunks {
			body = append(body, *bp...)
			putChunk(bp)
		}
		err := <-b.done
		end()
		h.observe(f, err, served)
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.Send(body)
	}
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set("X-Accel-Buffering", "no")
	// The connection's own goroutine pulls the chunks (streamBody.Read):
	// no body-writer goroutine and no pipe between it and the connection.
	c.Context().SetBodyStream(&streamBody{b: b, cancel: cancel, done: func(err error) {
		h.observe(f, err, served)
		end()
	}}, -1)
	return nil
}

// serveInline serves a turn that cannot stream in the handler's goroutine.
func (h *Handler) serveInline(ctx context.Context, c *fiber.Ctx, f llm.Format, t *gateway.Turn) error {
	o := &inlineOutput{}
	err := serveRecovered(ctx, h.d.Service.Serve, t, o)
	if !o.committed {
		e := classify(err)
		h.d.Observe(f, e.Status, e.Code, gateway.Served{})
		return h.writeError(c, f, err)
	}
	setServedHeaders(c, o.served)
	h.observe(f, err, o.served)
	if o.served.Stream { // not expected without a "stream" field; still answered whole
		c.Set(fiber.HeaderContentType, "text/event-stream")
	} else {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	}
	return c.Send(o.body)
}

func (h *Handler) observe(f llm.Format, err error, s gateway.Served) {
	if err == nil {
		h.d.Observe(f, 200, "", s)
		return
	}
	e := classify(err)
	h.d.Observe(f, e.Status, e.Code, s)
}

func setServedHeaders(c *fiber.Ctx, s gateway.Served) {
	c.Set("x-heddle-model", s.Model)
	c.Set("x-heddle-provider", s.Provider)
	c.Set("x-heddle-route", s.Route)
	if s.Fallback {
		c.Set("x-heddle-fallback", "1")
	}
}

// writeError answers err in format f's native error shape.
func (h *Handler) writeError(c *fiber.Ctx, f llm.Format, err error) error {
	e := classify(err)
	if e.Status >= 500 && e.Code == "internal.error" {
		id := gateway.NewRequestID()
		var p *panicError
		if errors.As(err, &p) {
			h.d.Logger.ErrorContext(c.UserContext(), "panic recovered", "err", err, "error_id", id, "stack", p.stack)
		} else {
			h.d.Logger.ErrorContext(c.UserContext(), "request failed", "err", err, "error_id", id)
		}
		e.Message = "internal error " + id
	}
	return h.sendError(c, f, e)
}

func (h *Handler) sendError(c *fiber.Ctx, f llm.Format, e apiError) error {
	c.Set("x-heddle-error", e.Code)
	if ra := retryAfter(e); ra != "" {
		c.Set(fiber.HeaderRetryAfter, ra)
	}
	codec := h.d.Service.Codec(f)
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	status := e.Status
	return c.Status(status).Send(nativeError(codec, e))
}
