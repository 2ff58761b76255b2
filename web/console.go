package web

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"log/slog"
	"time"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/dispatch"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/web/views/layout"
)

// ConsoleConfig are the console's settings (its services are Services).
type ConsoleConfig struct {
	Logger *slog.Logger // nil discards
	// CookieSecure marks session cookies Secure (set it behind HTTPS).
	CookieSecure bool
	// MaxBundleBytes bounds an uploaded evaluation data set; 0 means
	// routing.DefaultOrgMaxBytes. The fiber app's BodyLimit must allow it.
	MaxBundleBytes int64
	// Now is the clock of the dashboard's period; nil means time.Now.
	Now func() time.Time
	// BaselineModel is the savings baseline of "auto" turns
	// (HEDDLE_BASELINE_MODEL), named where savings are explained.
	BaselineModel string
	// DefaultAlpha is the deployment's default quality/cost dial, shown
	// as the effective dial where an organisation set none.
	DefaultAlpha float64
	// Circuits lists an organisation's circuit breakers on this replica
	// (dispatch.Executor.Circuits), for the provider health page; nil
	// shows none.
	Circuits func(orgID string) []dispatch.Circuit
	// RoutePreview answers the routing page's "try a prompt": the decision
	// the organisation's router makes for prompt sent as model ("auto"
	// when empty), without any upstream call (gateway.Service.Route);
	// nil hides the answer behind an error.
	RoutePreview func(ctx context.Context, orgID, model, prompt string) (*gateway.RouteAnswer, error)
}

// consoleDeps are what the console's handlers reach: its services and
// settings.
type consoleDeps struct {
	Services
	ConsoleConfig
}

// Console is the server-rendered web console (templ + htmx). Build it with
// NewConsole and Mount it.
type Console struct {
	d consoleDeps
	// api holds the operations the console shares with the admin API (the
	// caller's actor, session cookies, budget and routing changes), built
	// over the console's own Services; it is never mounted.
	api *API
}

// NewConsole returns the console over s (the same Services as the admin
// API's), or an error wrapping ErrMissingService naming every service s
// lacks.
func NewConsole(s Services, cfg ConsoleConfig) (*Console, error) {
	if err := s.validate(); err != nil {
		return nil, fmt.Errorf("web: console: %w", err)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxBundleBytes <= 0 {
		cfg.MaxBundleBytes = routing.DefaultOrgMaxBytes
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	api, err := NewAPI(s, APIConfig{Logger: cfg.Logger, CookieSecure: cfg.CookieSecure, MaxBundleBytes: cfg.MaxBundleBytes})
	if err != nil {
		return nil, err
	}
	return &Console{d: consoleDeps{Services: s, ConsoleConfig: cfg}, api: api}, nil
}

// Mount registers the console's routes on r: / (redirect), /login,
// /signup, /invite/:token, /logout, /dashboard, /requests, /requests/:id, /keys,
// /credentials, /models (own providers and models), /reports (and its
// cost.csv and cost.json), /routing, /orgs
// (switch, create), /org
// and /static/*.
func (c *Console) Mount(r fiber.Router) {
	// Middleware is attached per route, not with Use or a prefix-less group,
	// so paths the console does not serve (data-plane 404s) never meet it.
	open := func(h fiber.Handler) []fiber.Handler { return []fiber.Handler{c.secure, h} }
	auth := func(h fiber.Handler) []fiber.Handler { return []fiber.Handler{c.secure, c.requireSession, h} }
	r.Get("/static/:hash/:name", c.asset)
	r.Get("/", open(func(ctx *fiber.Ctx) error { return ctx.Redirect("/dashboard", fiber.StatusSeeOther) })...)
	r.Get("/login", open(c.loginPage)...)
	r.Post("/login", open(c.login)...)
	r.Get("/signup", open(c.signupPage)...)
	r.Post("/signup", open(c.signup)...)
	r.Get("/invite/:token", open(c.invitePage)...)
	r.Post("/invite/:token", open(c.acceptInvite)...)

	r.Post("/logout", auth(c.logout)...)
	r.Get("/dashboard", auth(c.dashboard)...)
	r.Get("/requests", auth(c.requests)...)
	r.Get("/requests/:id", auth(c.timeline)...)
	r.Get("/keys", auth(c.keysPage)...)
	r.Post("/keys", auth(c.createKey)...)
	r.Post("/keys/:id/revoke", auth(c.revokeKey)...)
	r.Post("/keys/:id/reinstate", auth(c.reinstateKey)...)
	r.Get("/keys/:id/edit", auth(c.editKeyPage)...)
	r.Post("/keys/:id/edit", auth(c.updateKey)...)
	r.Get("/keys/:id/row", auth(c.keyRowPage)...)
	r.Get("/credentials", auth(c.credentialsPage)...)
	r.Post("/credentials", auth(c.addCredential)...)
	r.Post("/credentials/:id/delete", auth(c.deleteCredential)...)
	r.Post("/credentials/:id/test", auth(c.testCredential)...)
	r.Post("/credentials/:id/rotate", auth(c.rotateCredential)...)
	r.Get("/reports", auth(c.reportsPage)...)
	r.Get("/reports/cost.csv", auth(c.reportDownload("csv"))...)
	r.Get("/reports/cost.json", auth(c.reportDownload("json"))...)
	r.Get("/routing", auth(c.routingPage)...)
	r.Post("/routing", auth(c.saveRouting)...)
	r.Post("/routing/bundles", auth(c.trainBundle)...)
	r.Post("/routing/try", auth(c.tryRoute)...)
	r.Get("/providers/health", auth(c.healthPage)...)
	r.Get("/routing/jobs/:id", auth(c.jobStatus)...)
	r.Post("/routing/jobs/:id/cancel", auth(c.cancelJob)...)
	r.Get("/models", auth(c.modelsPage)...)
	r.Post("/models", auth(c.addModelsModel)...)
	r.Post("/models/delete", auth(c.deleteModelsModel)...)
	r.Post("/models/providers", auth(c.addModelsProvider)...)
	r.Post("/models/providers/delete", auth(c.deleteModelsProvider)...)
	r.Get("/budgets", auth(c.budgetsPage)...)
	r.Post("/budgets", auth(c.saveBudgets)...)
	r.Get("/billing", auth(c.billingPage)...)
	r.Get("/billing/ledger", auth(c.billingLedger)...)
	r.Get("/billing/statements/:month", auth(c.billingStatement)...)
	c.mountOperator(r, auth)
	r.Get("/orgs", auth(c.orgsPage)...)
	r.Post("/orgs", auth(c.createOrg)...)
	r.Post("/orgs/:id/switch", auth(c.switchOrg)...)
	r.Get("/org", auth(c.orgPage)...)
	r.Post("/org/invitations", auth(c.orgInvite)...)
	r.Post("/org/invitations/:id/cancel", auth(c.orgCancelInvitation)...)
	r.Post("/org/members/:user/role", auth(c.orgChangeRole)...)
	r.Post("/org/members/:user/remove", auth(c.orgRemove)...)
	r.Post("/org/privacy", auth(c.orgSavePrivacy)...)
	r.Post("/org/privacy/delete", auth(c.orgDeleteContent)...)
}

type nonceKey struct{}

// secure sets the console's security headers, with a fresh CSP nonce per
// response: scripts only from this origin with the nonce, styles only from
// this origin, no framing, no plugins, forms only to this origin.
func (c *Console) secure(ctx *fiber.Ctx) error {
	b := make([]byte, 18)
	if _, err := rand.Read(b); err != nil {
		return err
	}
	nonce := base64.RawStdEncoding.EncodeToString(b)
	ctx.Locals(nonceKey{}, nonce)
	ctx.Set("Content-Security-Policy", "default-src 'none'; script-src 'self' 'nonce-"+nonce+"'; style-src 'self'; "+
		"img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	ctx.Set("X-Content-Type-Options", "nosniff")
	ctx.Set("X-Frame-Options", "DENY")
	ctx.Set("Referrer-Policy", "same-origin")
	ctx.Set(fiber.HeaderCacheControl, "no-store")
	ctx.Vary("HX-Request")
	return ctx.Next()
}

func nonceOf(ctx *fiber.Ctx) string {
	n, _ := ctx.Locals(nonceKey{}).(string)
	return n
}

// isHTMX reports whether the request came from htmx (so it gets a partial).
func isHTMX(ctx *fiber.Ctx) bool {
	return ctx.Get("HX-Request") == "true" && ctx.Get("HX-History-Restore-Request") != "true"
}

// render writes comp as HTML with status.
func (c *Console) render(ctx *fiber.Ctx, status int, comp templ.Component) error {
	ctx.Status(status).Type("html", "utf-8")
	return comp.Render(ctx.UserContext(), ctx.Response().BodyWriter())
}

// layoutFor is the page shell for the signed-in user.
func (c *Console) layoutFor(ctx *fiber.Ctx, title, active string) layout.Props {
	p := layout.Props{Title: title, Nonce: nonceOf(ctx), Active: active}
	if s := sessionOf(ctx); s != nil {
		p.CSRF, p.Email, p.Org = s.CSRF, s.Email, s.OrgName
		p.Operator = c.api.checkOperator(ctx) == nil
	}
	return p
}
