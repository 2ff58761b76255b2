package web

import (
	"context"
	"net/url"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/tenantmodel"
)

// capsView is a tenant model's capabilities.
type capsView struct {
	Tools  bool `json:"tools"`
	Vision bool `json:"vision"`
}

// priceView is in USD per million tokens.
type priceView struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
}

// modelView is a tenant model as the API shows it.
type modelView struct {
	ID            string    `json:"id"`
	Provider      string    `json:"provider"`
	Upstream      string    `json:"upstream"`
	Format        string    `json:"format"`
	ContextWindow int       `json:"context_window"`
	MaxOutput     int       `json:"max_output"`
	Capabilities  capsView  `json:"capabilities"`
	Price         priceView `json:"price"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
}

func viewModel(m *tenantmodel.Model) modelView {
	return modelView{ID: m.ID, Provider: m.Provider, Upstream: m.Upstream, Format: string(m.Format),
		ContextWindow: m.ContextWindow, MaxOutput: m.MaxOutput, Capabilities: capsView{Tools: m.Tools, Vision: m.Vision},
		Price:     priceView{Input: m.Price.Input, Output: m.Price.Output, CacheRead: m.Price.CacheRead, CacheWrite: m.Price.CacheWrite},
		CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt}
}

type modelRequest struct {
	ID            string    `json:"id"`
	Provider      string    `json:"provider"`
	Upstream      string    `json:"upstream"`
	Format        string    `json:"format"`
	ContextWindow int       `json:"context_window"`
	MaxOutput     int       `json:"max_output"`
	Capabilities  capsView  `json:"capabilities"`
	Price         priceView `json:"price"`
}

func (r modelRequest) input() tenantmodel.ModelInput {
	return tenantmodel.ModelInput{ID: r.ID, Provider: r.Provider, Upstream: r.Upstream, Format: llm.Format(r.Format),
		ContextWindow: r.ContextWindow, MaxOutput: r.MaxOutput, Tools: r.Capabilities.Tools, Vision: r.Capabilities.Vision,
		Price: catalog.Price(r.Price)}
}

type modelPatchRequest struct {
	Upstream      *string `json:"upstream"`
	ContextWindow *int    `json:"context_window"`
	MaxOutput     *int    `json:"max_output"`
	Capabilities  *struct {
		Tools  *bool `json:"tools"`
		Vision *bool `json:"vision"`
	} `json:"capabilities"`
	Price *priceView `json:"price"`
}

// listModels handles GET /api/v1/models: the organisation's own models.
func (a *API) listModels(c *fiber.Ctx) error {
	svc, act, err := a.tenantActor(c)
	if err != nil {
		return a.fail(c, err)
	}
	ms, err := svc.Models(c.UserContext(), act)
	if err != nil {
		return a.fail(c, err)
	}
	out := make([]modelView, len(ms))
	for i := range ms {
		out[i] = viewModel(&ms[i])
	}
	return c.JSON(fiber.Map{"models": out})
}

// addModel handles POST /api/v1/models.
func (a *API) addModel(c *fiber.Ctx) error {
	svc, act, err := a.tenantActor(c)
	if err != nil {
		return a.fail(c, err)
	}
	var req modelRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	m, err := a.createModel(c.UserContext(), svc, act, req.input())
	if err != nil {
		return a.fail(c, err)
	}
	return c.Status(fiber.StatusCreated).JSON(viewModel(m))
}

// createModel registers a model for act; the API and the console both add
// through it.
func (a *API) createModel(ctx context.Context, svc *tenantmodel.Service, act tenancy.Actor, in tenantmodel.ModelInput) (*tenantmodel.Model, error) {
	m, err := svc.AddModel(ctx, act, in)
	if err != nil {
		return nil, err
	}
	a.d.Logger.InfoContext(ctx, "tenant model added", "org_id", act.OrgID, "user_id", act.UserID, "model", m.ID, "provider", m.Provider)
	return m, nil
}

// updateModel handles PATCH /api/v1/models/:id.
func (a *API) updateModel(c *fiber.Ctx) error {
	svc, act, err := a.tenantActor(c)
	if err != nil {
		return a.fail(c, err)
	}
	var req modelPatchRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	p := tenantmodel.ModelPatch{Upstream: req.Upstream, ContextWindow: req.ContextWindow, MaxOutput: req.MaxOutput}
	if req.Capabilities != nil {
		p.Tools, p.Vision = req.Capabilities.Tools, req.Capabilities.Vision
	}
	if req.Price != nil {
		price := catalog.Price(*req.Price)
		p.Price = &price
	}
	ctx := c.UserContext()
	m, err := svc.UpdateModel(ctx, act, modelIDParam(c), p)
	if err != nil {
		return a.fail(c, err)
	}
	a.d.Logger.InfoContext(ctx, "tenant model updated", "org_id", act.OrgID, "user_id", act.UserID, "model", m.ID)
	return c.JSON(viewModel(m))
}

// deleteModel handles DELETE /api/v1/models/:id.
func (a *API) deleteModel(c *fiber.Ctx) error {
	svc, act, err := a.tenantActor(c)
	if err != nil {
		return a.fail(c, err)
	}
	ctx := c.UserContext()
	id := modelIDParam(c)
	if err := svc.DeleteModel(ctx, act, id); err != nil {
		return a.fail(c, err)
	}
	a.d.Logger.InfoContext(ctx, "tenant model deleted", "org_id", act.OrgID, "user_id", act.UserID, "model", id)
	return c.SendStatus(fiber.StatusNoContent)
}

// knownModel is the routing settings' validation hook for act's
// organisation: a catalog model, a pass-through name or one of its own
// models. It fails closed
// when the organisation's models cannot be read.
func (a *API) knownModel(ctx context.Context, orgID string) (func(string) bool, error) {
	set, err := a.d.TenantModels.Org(ctx, orgID)
	if err != nil {
		return nil, err
	}
	return func(id string) bool {
		if a.d.KnownModel(id) || a.d.PassThroughModel(id) {
			return true
		}
		_, _, ok := set.Model(id)
		return ok
	}, nil
}

// modelIDParam is the model id of /api/v1/models/<id>: the rest of the path
// (ids may contain '/'), percent-decoded (so "acme%2Fllama" works too).
func modelIDParam(c *fiber.Ctx) string {
	raw := utils.CopyString(c.Params("*"))
	if id, err := url.PathUnescape(raw); err == nil {
		return id
	}
	return raw
}
