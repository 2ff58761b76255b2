// Package web is Heddle's console (templ + htmx) and its JSON admin API under
// /api/v1 (sign-up, log-in, organisations and members, rk_ keys, BYOK
// credentials, organisation routing settings and bundles, cost reports).
//
// Ring: presentation. It imports domain packages, never adapters; it does no
// I/O of its own beyond HTTP request and response handling.
package web

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/routing"
)

// CredentialTester checks a provider credential against its upstream (for
// example by listing models). It returns nil when the credential works. It
// blocks and must honour ctx. The error may be shown to the admin after the
// secret has been scrubbed from it.
type CredentialTester interface {
	// Test probes provider for orgID (whose own providers and models a
	// tester may use to find a model to probe).
	Test(ctx context.Context, orgID, provider, baseURL, secret string) error
}

// DefaultMaxAPIBody bounds admin API request bodies.
const DefaultMaxAPIBody = 64 << 10

// APIConfig are the admin API's settings (its services are Services).
type APIConfig struct {
	Logger *slog.Logger // nil discards
	// CookieSecure marks session cookies Secure (set it behind HTTPS).
	CookieSecure bool
	// MaxBodyBytes bounds request bodies; 0 means DefaultMaxAPIBody.
	MaxBodyBytes int
	// MaxBundleBytes bounds an uploaded evaluation data set; 0 means
	// routing.DefaultOrgMaxBytes. The fiber app's BodyLimit must allow it.
	MaxBundleBytes int64
}

// apiDeps are what the API's handlers reach: its services and settings.
type apiDeps struct {
	Services
	APIConfig
}

// API is the JSON admin API. Build it with NewAPI and Mount it.
type API struct {
	d apiDeps
}

// NewAPI returns the admin API over s, or an error wrapping
// ErrMissingService naming every service s lacks.
func NewAPI(s Services, cfg APIConfig) (*API, error) {
	if err := s.validate(); err != nil {
		return nil, fmt.Errorf("web: admin API: %w", err)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxAPIBody
	}
	if cfg.MaxBundleBytes <= 0 {
		cfg.MaxBundleBytes = routing.DefaultOrgMaxBytes
	}
	return &API{d: apiDeps{Services: s, APIConfig: cfg}}, nil
}

// Mount registers the API's routes under /api/v1 on r.
func (a *API) Mount(r fiber.Router) {
	g := r.Group("/api/v1", a.noStore)
	g.Post("/signup", a.signup)
	g.Post("/login", a.login)
	g.Post("/refresh", a.refresh)
	g.Post("/invitations/:token/accept", a.acceptInvitation)

	auth := g.Group("", a.RequireAuth)
	auth.Post("/logout", a.logout)
	auth.Get("/me", a.me)
	auth.Get("/orgs", a.listOrgs)
	auth.Post("/orgs", a.createOrg)
	auth.Get("/orgs/current", a.currentOrg)
	auth.Put("/orgs/current", a.switchOrg)
	auth.Patch("/orgs/:id", a.updateOrg)
	auth.Get("/orgs/:id/members", a.listMembers)
	auth.Post("/orgs/:id/members", a.inviteMember)
	auth.Patch("/orgs/:id/members/:user", a.changeRole)
	auth.Delete("/orgs/:id/members/:user", a.removeMember)
	auth.Delete("/orgs/:id/invitations/:inv", a.cancelInvitation)

	auth.Get("/keys", a.listKeys)
	auth.Post("/keys", a.createKey)
	auth.Get("/keys/:id", a.getKey)
	auth.Patch("/keys/:id", a.updateKey)
	auth.Delete("/keys/:id", a.revokeKey)
	auth.Post("/keys/:id/reinstate", a.reinstateKey)

	auth.Get("/credentials", a.listCredentials)
	auth.Post("/credentials", a.addCredential)
	auth.Post("/credentials/:id/test", a.testCredential)
	auth.Post("/credentials/:id/rotate", a.rotateCredential)
	auth.Delete("/credentials/:id", a.deleteCredential)

	auth.Get("/routing", a.getRouting)
	auth.Put("/routing", a.putRouting)
	auth.Post("/routing/bundles", a.uploadBundle)
	auth.Get("/routing/jobs", a.listJobs)
	auth.Get("/routing/jobs/:id", a.getJob)
	auth.Delete("/routing/jobs/:id", a.cancelJob)

	auth.Get("/reports/cost", a.costReport)

	auth.Get("/budgets", a.getBudgets)
	auth.Put("/budgets", a.putBudgets)

	auth.Get("/providers", a.listProviders)
	auth.Post("/providers", a.addProvider)
	auth.Delete("/providers/:name", a.deleteProvider)
	auth.Get("/models", a.listModels)
	auth.Post("/models", a.addModel)
	// Model ids may contain '/' (e.g. "acme/llama"): the rest of the path
	// is the id.
	auth.Patch("/models/*", a.updateModel)
	auth.Delete("/models/*", a.deleteModel)

	auth.Get("/privacy", a.getPrivacy)
	auth.Put("/privacy", a.putPrivacy)
	auth.Delete("/privacy/content", a.deleteContent)
	auth.Get("/requests", a.listRequests)
	auth.Get("/requests/:id", a.getRequest)
	auth.Get("/requests/:id/content", a.getContent)

	auth.Get("/billing", a.getBilling)
	auth.Get("/billing/ledger", a.getLedger)
	auth.Get("/billing/statements/:month", a.getStatement)
	a.mountOperator(auth)

	g.Use(func(c *fiber.Ctx) error { return a.fail(c, errRoute) })
}

// noStore keeps tokens and keys out of caches.
func (a *API) noStore(c *fiber.Ctx) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Next()
}
