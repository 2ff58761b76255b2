package httpapi

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/llm"
)

// catalogEpoch is the created time reported for catalog models.
var catalogEpoch = time.Date(2025, 11, 20, 0, 0, 0, 0, time.UTC)

// models lists the models this key's organisation can reach in OpenAI's
// shape, or Anthropic's when the caller sends anthropic-version. The
// router's "auto" is listed first.
func (h *Handler) models(c *fiber.Ctx) error {
	anthropic := c.Get("anthropic-version") != ""
	f := llm.FormatChat
	if anthropic {
		f = llm.FormatAnthropic
	}
	caller, err := h.d.Auth.Authenticate(c.UserContext(), presentedKey(c))
	if err != nil {
		return h.writeError(c, f, authFailure(err))
	}
	models, err := h.d.Service.ModelsFor(c.UserContext(), caller)
	if err != nil {
		return h.writeError(c, f, err)
	}
	ids := modelIDs(models)
	if anthropic {
		type model struct {
			Type        string `json:"type"`
			ID          string `json:"id"`
			DisplayName string `json:"display_name"`
			CreatedAt   string `json:"created_at"`
		}
		out := struct {
			Data    []model `json:"data"`
			HasMore bool    `json:"has_more"`
			FirstID string  `json:"first_id"`
			LastID  string  `json:"last_id"`
		}{}
		for _, id := range ids {
			out.Data = append(out.Data, model{"model", id, id, catalogEpoch.Format(time.RFC3339)})
		}
		out.FirstID, out.LastID = ids[0], ids[len(ids)-1]
		return c.JSON(out)
	}
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	out := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list"}
	for _, id := range ids {
		out.Data = append(out.Data, model{id, "model", catalogEpoch.Unix(), "heddle"})
	}
	return c.JSON(out)
}

// geminiModels lists the catalog in Gemini's shape.
func (h *Handler) geminiModels(c *fiber.Ctx) error {
	caller, err := h.d.Auth.Authenticate(c.UserContext(), presentedKey(c))
	if err != nil {
		return h.writeError(c, llm.FormatGemini, authFailure(err))
	}
	models, err := h.d.Service.ModelsFor(c.UserContext(), caller)
	if err != nil {
		return h.writeError(c, llm.FormatGemini, err)
	}
	type model struct {
		Name                       string   `json:"name"`
		DisplayName                string   `json:"displayName"`
		InputTokenLimit            int      `json:"inputTokenLimit,omitempty"`
		OutputTokenLimit           int      `json:"outputTokenLimit,omitempty"`
		SupportedGenerationMethods []string `json:"supportedGenerationMethods"`
	}
	out := struct {
		Models []model `json:"models"`
	}{}
	methods := []string{"generateContent", "streamGenerateContent", "countTokens"}
	out.Models = append(out.Models, model{Name: "models/auto", DisplayName: "auto", SupportedGenerationMethods: methods})
	for _, m := range models {
		out.Models = append(out.Models, model{"models/" + m.ID, m.ID, m.ContextWindow, m.MaxOutput, methods})
	}
	return c.JSON(out)
}

func modelIDs(models []catalog.Model) []string {
	ids := []string{"auto"}
	for _, m := range models {
		ids = append(ids, m.ID)
	}
	return ids
}
