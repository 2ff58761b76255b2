package app

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/web"
)

// mountConsole mounts the admin JSON API under /api/v1 and the templ + htmx
// console (/, /login, /dashboard, /requests, /keys, /credentials).
func mountConsole(app *fiber.App, c *components) {
	api := web.NewAPI(web.APIDeps{
		Accounts: c.accounts, Members: c.members, Sessions: c.sessions, Keys: c.keys, Credentials: c.creds,
		Limiter: c.limiter, Logger: c.logger.With("component", "web"), CookieSecure: c.cfg.CookieSecure,
		Tester: credentialTester{catalog: c.catalog, providers: c.providers, codecs: c.codecs, logger: c.logger,
			tenant: tenantSource{c.tenantModels}, providerFor: tenantProviderFor(c.hc, c.cfg.AllowPrivate)},
		Reports:         c.reader,
		Budgets:         web.BudgetDeps{Settings: c.orgBudgets, Spend: c.budgets},
		Privacy:         c.contents,
		TenantModels:    c.tenantModels,
		RoutingSettings: c.orgRouting, RoutingBundles: c.orgRouting, RoutingChanged: c.orgRouters.Invalidate,
		// A catalog model, or a name it lacks that passes through (so deny
		// and allow lists can name one).
		KnownModel: func(id string) bool {
			_, err := c.catalog.Lookup(id)
			_, passes := c.catalog.PassThroughOf(id)
			return err == nil || passes
		},
	})
	api.Mount(app)
	web.NewConsole(web.ConsoleDeps{API: api, Reader: c.reader, Logger: c.logger.With("component", "console"),
		Models: func(ctx context.Context, orgID string) ([]catalog.Model, error) {
			return c.service.ModelsFor(ctx, gateway.Caller{OrgID: orgID})
		},
	}).Mount(app)
}
