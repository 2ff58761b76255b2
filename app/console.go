package app

import (
	"context"
	"fmt"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/analytics"
	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/web"
)

// wireWeb builds the admin JSON API and the templ + htmx console over one
// set of services.
func (c *components) wireWeb() error {
	if _, ok := c.reader.(analytics.HealthReader); !ok {
		return fmt.Errorf("app: the analytics reader %T cannot answer the provider health page", c.reader)
	}
	s := web.Services{
		Accounts: c.accounts, Members: c.members, Sessions: c.sessions, Keys: c.keys, Credentials: c.creds,
		Limiter: c.limiter,
		Tester: credentialTester{catalog: c.catalog, providers: c.providers, codecs: c.codecs, logger: c.logger,
			tenant: tenantSource{c.tenantModels}, providerFor: tenantProviderFor(c.hc, c.cfg.AllowPrivate)},
		RoutingSettings: c.orgRouting, RoutingBundles: c.orgRouting, Training: c.training, RoutingChanged: c.orgRouters.Invalidate,
		KnownModel:       func(id string) bool { _, err := c.catalog.Lookup(id); return err == nil },
		PassThroughModel: func(id string) bool { _, passes := c.catalog.PassThroughOf(id); return passes },
		Reader:           c.reader,
		Budgets: web.BudgetDeps{Settings: c.orgBudgets, Spend: c.budgets,
			ConcurrencyCeiling: concurrencyCeiling(c.credits, c.cfg.Capacity.OrgConcurrency)},
		TenantModels: c.tenantModels,
		Privacy:      c.contents,
		Models: func(ctx context.Context, orgID string) ([]catalog.Model, error) {
			return c.service.ModelsFor(ctx, gateway.Caller{OrgID: orgID})
		},
		Billing: c.billingDeps(),
	}
	var err error
	if c.adminAPI, err = web.NewAPI(s, web.APIConfig{Logger: c.logger.With("component", "web"), CookieSecure: c.cfg.CookieSecure}); err != nil {
		return fmt.Errorf("app: %w", err)
	}
	c.console, err = web.NewConsole(s, web.ConsoleConfig{Logger: c.logger.With("component", "console"), CookieSecure: c.cfg.CookieSecure,
		BaselineModel: c.cfg.BaselineModel, DefaultAlpha: c.cfg.DefaultAlpha, Circuits: c.executor.Circuits,
		RoutePreview: routePreview(c.service)})
	if err != nil {
		return fmt.Errorf("app: %w", err)
	}
	return nil
}

// mountConsole mounts the admin JSON API under /api/v1 and the console (/,
// /login, /dashboard, /requests, /keys, /credentials, ...).
func mountConsole(app *fiber.App, c *components) {
	c.adminAPI.Mount(app)
	c.console.Mount(app)
}

// edgeErrors renders fiber's own errors (a body over BodyLimit, an unknown
// route) in the admin API's JSON shape under its paths, and in the data
// plane's wire format everywhere else.
func edgeErrors(admin *web.API, data fiber.ErrorHandler) fiber.ErrorHandler {
	return func(ctx *fiber.Ctx, err error) error {
		if web.IsAdminPath(ctx.Path()) {
			return admin.ErrorHandler(ctx, err)
		}
		return data(ctx, err)
	}
}
