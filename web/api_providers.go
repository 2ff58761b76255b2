package web

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/tenantmodel"
)

// providerView is a tenant provider as the API shows it (never its secret).
type providerView struct {
	Name         string    `json:"name"`
	BaseURL      string    `json:"base_url"`
	Format       string    `json:"format"`
	CredentialID string    `json:"credential_id"`
	CreatedAt    time.Time `json:"created_at"`
}

func viewProvider(p *tenantmodel.Provider) providerView {
	return providerView{Name: p.Name, BaseURL: p.BaseURL, Format: string(p.Format), CredentialID: p.CredentialID,
		CreatedAt: p.CreatedAt}
}

type providerRequest struct {
	Name    string `json:"name"`
	BaseURL string `json:"base_url"`
	Secret  string `json:"secret"`
}

// tenantActor returns the tenant models service and the caller.
func (a *API) tenantActor(c *fiber.Ctx) (*tenantmodel.Service, tenancy.Actor, error) {
	act, err := a.actor(c)
	return a.d.TenantModels, act, err
}

// listProviders handles GET /api/v1/providers.
func (a *API) listProviders(c *fiber.Ctx) error {
	svc, act, err := a.tenantActor(c)
	if err != nil {
		return a.fail(c, err)
	}
	ps, err := svc.Providers(c.UserContext(), act)
	if err != nil {
		return a.fail(c, err)
	}
	out := make([]providerView, len(ps))
	for i := range ps {
		out[i] = viewProvider(&ps[i])
	}
	return c.JSON(fiber.Map{"providers": out})
}

// addProvider handles POST /api/v1/providers: an OpenAI-compatible endpoint
// of the organisation's own and its secret.
func (a *API) addProvider(c *fiber.Ctx) error {
	svc, act, err := a.tenantActor(c)
	if err != nil {
		return a.fail(c, err)
	}
	var req providerRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	p, err := a.createProvider(c, svc, act, req)
	if err != nil {
		return a.fail(c, err)
	}
	return c.Status(fiber.StatusCreated).JSON(viewProvider(p))
}

// deleteProvider handles DELETE /api/v1/providers/:name (409 while it has
// models).
func (a *API) deleteProvider(c *fiber.Ctx) error {
	svc, act, err := a.tenantActor(c)
	if err != nil {
		return a.fail(c, err)
	}
	if err := a.removeProvider(c, svc, act, param(c, "name")); err != nil {
		return a.fail(c, err)
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// createProvider adds a provider for act; the API and the console both add
// through it.
func (a *API) createProvider(c *fiber.Ctx, svc *tenantmodel.Service, act tenancy.Actor, req providerRequest) (*tenantmodel.Provider, error) {
	ctx := c.UserContext()
	p, err := svc.AddProvider(ctx, act, tenantmodel.ProviderInput{Name: req.Name, BaseURL: req.BaseURL, Secret: req.Secret})
	if err != nil {
		return nil, err
	}
	a.d.Logger.InfoContext(ctx, "tenant provider added", "org_id", act.OrgID, "user_id", act.UserID,
		"provider", p.Name, "credential_id", p.CredentialID)
	return p, nil
}

// removeProvider deletes one of act's organisation's providers.
func (a *API) removeProvider(c *fiber.Ctx, svc *tenantmodel.Service, act tenancy.Actor, name string) error {
	ctx := c.UserContext()
	if err := svc.DeleteProvider(ctx, act, name); err != nil {
		return err
	}
	a.d.Logger.InfoContext(ctx, "tenant provider deleted", "org_id", act.OrgID, "user_id", act.UserID, "provider", name)
	return nil
}
