package httpapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/llm"
)

// route answers POST /v1/route: the routing decision for a request body in
// the format named by ?format= (anthropic, openai_chat, openai_responses,
// gemini; default: anthropic when anthropic-version is sent, else
// openai_chat), with no upstream call.
func (h *Handler) route(c *fiber.Ctx) error {
	f := llm.Format(c.Query("format"))
	if f == "" {
		f = llm.FormatChat
		if c.Get("anthropic-version") != "" {
			f = llm.FormatAnthropic
		}
	}
	if !f.Valid() {
		return h.sendError(c, llm.FormatChat, apiError{400, "request.invalid", "invalid_request_error",
			"format: must be anthropic, openai_chat, openai_responses or gemini", 0})
	}
	caller, err := h.d.Auth.Authenticate(c.UserContext(), presentedKey(c))
	if err != nil {
		return h.writeError(c, f, authFailure(err))
	}
	ans, err := h.d.Service.Route(c.UserContext(), caller, f, append([]byte(nil), c.Body()...), c.Query("model"))
	if err != nil {
		return h.writeError(c, f, err)
	}
	return c.JSON(ans)
}
