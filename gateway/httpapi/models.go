package httpapi

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/llm"
)

// catalogEpoch is the created time reported for catalog models.
var catalogEpoch = time.Date(2025, 11, 20, 0, 0, 0, 0, time.UTC)

// models lists the models this key's organisation can reach in OpenAI's
// shape (chat and embedding models), or Anthropic's when the caller sends
// anthropic-version (chat models: Anthropic's API has no embeddings). The
// router's "auto" is listed first; an organisation alias carries
// heddle_alias_of, its target (Anthropic's display name says it too).
func (h *Handler) models(c *fiber.Ctx) error {
	anthropic := c.Get("anthropic-version") != ""
	f := llm.FormatChat
	if anthropic {
		f = llm.FormatAnthropic
	}
	caller, err := h.d.Auth.Authenticate(c.UserContext(), presentedKey(c))
	if err != nil {
		return h.writeError(c, f, authError(err))
	}
	entries, err := h.d.Service.ListModels(c.UserContext(), caller)
	if err != nil {
		return h.writeError(c, f, err)
	}
	entries = append([]gateway.ModelEntry{{Model: autoModel}}, entries...)
	if anthropic {
		type model struct {
			Type        string `json:"type"`
			ID          string `json:"id"`
			DisplayName string `json:"display_name"`
			CreatedAt   string `json:"created_at"`
			AliasOf     string `json:"heddle_alias_of,omitempty"`
		}
		out := struct {
			Data    []model `json:"data"`
			HasMore bool    `json:"has_more"`
			FirstID string  `json:"first_id"`
			LastID  string  `json:"last_id"`
		}{}
		for _, e := range entries {
			if e.Embedding {
				continue
			}
			name := e.Model.ID
			if e.AliasOf != "" {
				name += " (alias of " + e.AliasOf + ")"
			}
			out.Data = append(out.Data, model{"model", e.Model.ID, name, catalogEpoch.Format(time.RFC3339), e.AliasOf})
		}
		out.FirstID, out.LastID = out.Data[0].ID, out.Data[len(out.Data)-1].ID
		return c.JSON(out)
	}
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
		AliasOf string `json:"heddle_alias_of,omitempty"`
	}
	out := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list"}
	for _, e := range entries {
		out.Data = append(out.Data, model{e.Model.ID, "model", catalogEpoch.Unix(), "heddle", e.AliasOf})
	}
	return c.JSON(out)
}

// geminiModels lists the models in Gemini's shape: chat models with the
// generate methods, embedding models with embedContent and
// batchEmbedContents; an organisation alias names its target in
// baseModelId and its description.
func (h *Handler) geminiModels(c *fiber.Ctx) error {
	caller, err := h.d.Auth.Authenticate(c.UserContext(), presentedKey(c))
	if err != nil {
		return h.writeError(c, llm.FormatGemini, authError(err))
	}
	entries, err := h.d.Service.ListModels(c.UserContext(), caller)
	if err != nil {
		return h.writeError(c, llm.FormatGemini, err)
	}
	type model struct {
		Name                       string   `json:"name"`
		BaseModelID                string   `json:"baseModelId,omitempty"`
		DisplayName                string   `json:"displayName"`
		Description                string   `json:"description,omitempty"`
		InputTokenLimit            int      `json:"inputTokenLimit,omitempty"`
		OutputTokenLimit           int      `json:"outputTokenLimit,omitempty"`
		SupportedGenerationMethods []string `json:"supportedGenerationMethods"`
	}
	out := struct {
		Models []model `json:"models"`
	}{}
	generate := []string{"generateContent", "streamGenerateContent", "countTokens"}
	embed := []string{"embedContent", "batchEmbedContents"}
	for _, e := range append([]gateway.ModelEntry{{Model: autoModel}}, entries...) {
		m := model{Name: "models/" + e.Model.ID, DisplayName: e.Model.ID, InputTokenLimit: e.Model.ContextWindow,
			OutputTokenLimit: e.Model.MaxOutput, SupportedGenerationMethods: generate}
		if e.Embedding {
			m.SupportedGenerationMethods = embed
		}
		if e.AliasOf != "" {
			m.BaseModelID, m.Description = e.AliasOf, "the organisation's alias of "+e.AliasOf
		}
		out.Models = append(out.Models, m)
	}
	return c.JSON(out)
}

// autoModel is the router's "auto", listed first in every shape.
var autoModel = catalog.Model{ID: "auto"}
