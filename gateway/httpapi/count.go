package httpapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/llm"
)

// countTokens answers Anthropic's count_tokens (and Gemini's countTokens)
// with an estimate, marked as one by x-heddle-estimate: 1.
func (h *Handler) countTokens(c *fiber.Ctx) error {
	f := llm.FormatAnthropic
	if c.Params("call") != "" {
		f = llm.FormatGemini
	}
	caller, err := h.d.Auth.Authenticate(c.UserContext(), presentedKey(c))
	if err != nil {
		return h.writeError(c, f, authFailure(err))
	}
	codec := h.d.Service.Codec(f)
	decode := codec.DecodeRequest
	// count_tokens bodies carry no max_tokens; the codec that knows this
	// shape offers a lenient decoder.
	if cd, ok := codec.(interface {
		DecodeCountRequest([]byte) (*llm.Request, error)
	}); ok {
		decode = cd.DecodeCountRequest
	}
	body := append([]byte(nil), c.Body()...)
	if f == llm.FormatGemini {
		req, err := decode(body)
		if err != nil {
			return h.writeError(c, f, err)
		}
		c.Set("x-heddle-estimate", "1")
		return c.JSON(fiber.Map{"totalTokens": gateway.EstimateTokens(req)})
	}
	n, err := h.d.Service.CountTokens(c.UserContext(), caller, body, decode)
	if err != nil {
		return h.writeError(c, f, err)
	}
	if n.Body != nil {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.Send(n.Body)
	}
	c.Set("x-heddle-estimate", "1")
	return c.JSON(fiber.Map{"input_tokens": n.Estimate})
}
