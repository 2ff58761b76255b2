package httpapi

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/llm"
)

// embeddings answers OpenAI's POST /v1/embeddings.
func (h *Handler) embeddings(c *fiber.Ctx) error { return h.embed(c, llm.FormatChat, "") }

// embed answers an embeddings request in format f (Gemini's names its
// model in the URL) through the service's embeddings pipeline, inline (an
// embeddings answer never streams), with errors in f's shape.
func (h *Handler) embed(c *fiber.Ctx, f llm.Format, pathModel string) error {
	caller, err := h.d.Auth.Authenticate(c.UserContext(), presentedKey(c))
	if err != nil {
		return h.writeError(c, f, gateway.ErrUnauthorized)
	}
	t := &gateway.Turn{
		RequestID: gateway.NewRequestID(), Received: time.Now(), Format: f,
		Body: append([]byte(nil), c.Body()...), Header: http.Header{}, PathModel: strings.Clone(pathModel), Caller: caller,
	}
	for _, k := range forwardedHeaders {
		if v := c.Get(k); v != "" {
			t.Header.Set(k, strings.Clone(v))
		}
	}
	c.Set("x-heddle-request-id", t.RequestID)
	base := context.Background()
	if h.d.Begin != nil {
		base = context.WithoutCancel(h.d.Begin(c.UserContext(), t))
	}
	ctx, cancel := context.WithCancelCause(base)
	defer cancel(nil)
	defer h.flight.begin(cancel)()
	o := &inlineOutput{}
	err = serveRecovered(ctx, h.d.Service.Embed, t, o)
	if !o.committed {
		e := classify(err)
		h.d.Observe(f, e.Status, e.Code, gateway.Served{})
		return h.writeError(c, f, err)
	}
	setServedHeaders(c, o.served)
	h.observe(f, err, o.served)
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(o.body)
}
