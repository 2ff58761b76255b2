package web

import (
	"context"
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/tenancy"
)

// routingView is an organisation's routing settings as the API shows them.
type routingView struct {
	Alpha       *float64          `json:"alpha"`
	Allow       []string          `json:"allow"`
	Deny        []string          `json:"deny"`
	CacheBypass bool              `json:"cache_bypass"`
	BundleID    string            `json:"bundle_id"`
	Aliases     map[string]string `json:"aliases"`
	// Passthrough says whether model names the catalog lacks go to the
	// provider their name names (default true).
	Passthrough bool       `json:"passthrough"`
	UpdatedAt   *time.Time `json:"updated_at"`
}

func viewRouting(s routing.OrgSettings) routingView {
	v := routingView{Alpha: s.Alpha, Allow: s.Allow, Deny: s.Deny, CacheBypass: s.CacheBypass, BundleID: s.BundleID, Aliases: s.Aliases,
		Passthrough: !s.PassthroughOff}
	if v.Aliases == nil {
		v.Aliases = map[string]string{}
	}
	if v.Allow == nil {
		v.Allow = []string{}
	}
	if v.Deny == nil {
		v.Deny = []string{}
	}
	if !s.UpdatedAt.IsZero() {
		u := s.UpdatedAt.UTC()
		v.UpdatedAt = &u
	}
	return v
}

// routingRequest is the body of PUT /api/v1/routing: the whole settings.
type routingRequest struct {
	Alpha       *float64 `json:"alpha"`
	Allow       []string `json:"allow"`
	Deny        []string `json:"deny"`
	CacheBypass bool     `json:"cache_bypass"`
	BundleID    string   `json:"bundle_id"`
	// Aliases map requested model names to catalog models or "auto"; names
	// are matched case-insensitively and stored lower case.
	Aliases map[string]string `json:"aliases"`
	// Passthrough false refuses model names the catalog lacks; absent
	// means true.
	Passthrough *bool `json:"passthrough"`
}

// settingsActor resolves the caller of an organisation settings surface:
// reading needs the read permission, changing (admin) the admin or owner
// role.
func (a *API) settingsActor(c *fiber.Ctx, admin bool) (tenancy.Actor, error) {
	act, err := a.actor(c)
	if err != nil {
		return act, err
	}
	if !act.Can(tenancy.PermRead) || (admin && !act.Role.AtLeast(tenancy.RoleAdmin)) {
		return act, tenancy.ErrForbidden
	}
	return act, nil
}

// routingState answers GET and PUT: the settings and the bundles.
func (a *API) routingState(c *fiber.Ctx, orgID string) error {
	ctx := c.UserContext()
	s, err := a.d.RoutingSettings.GetSettings(ctx, orgID)
	if err != nil {
		return a.fail(c, err)
	}
	bundles, err := a.d.RoutingBundles.ListBundles(ctx, orgID)
	if err != nil {
		return a.fail(c, err)
	}
	if bundles == nil {
		bundles = []routing.BundleInfo{}
	}
	return c.JSON(fiber.Map{"settings": viewRouting(s), "bundles": bundles})
}

// getRouting handles GET /api/v1/routing: the current organisation's
// routing settings and its trained bundles.
func (a *API) getRouting(c *fiber.Ctx) error {
	act, err := a.settingsActor(c, false)
	if err != nil {
		return a.fail(c, err)
	}
	return a.routingState(c, act.OrgID)
}

// putRouting handles PUT /api/v1/routing (admins and owners): it replaces the
// settings. bundle_id must name one of the organisation's bundles, or be ""
// for the default bundle.
func (a *API) putRouting(c *fiber.Ctx) error {
	act, err := a.settingsActor(c, true)
	if err != nil {
		return a.fail(c, err)
	}
	var req routingRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	aliases, err := routing.NormaliseAliases(req.Aliases)
	if err != nil {
		return a.fail(c, err)
	}
	s := routing.OrgSettings{Alpha: req.Alpha, Allow: req.Allow, Deny: req.Deny, CacheBypass: req.CacheBypass, BundleID: req.BundleID, Aliases: aliases,
		PassthroughOff: req.Passthrough != nil && !*req.Passthrough}
	if err := a.saveRouting(c.UserContext(), act, s, "api"); err != nil {
		return a.fail(c, err)
	}
	return a.routingState(c, act.OrgID)
}

// saveRouting validates s (an unknown bundle is a bundle_id field error),
// stores it as act's organisation's settings and announces the change. The
// API and the console both save through it.
func (a *API) saveRouting(ctx context.Context, act tenancy.Actor, s routing.OrgSettings, via string) error {
	known, err := a.knownModel(ctx, act.OrgID)
	if err != nil {
		return err
	}
	if err := s.Validate(known); err != nil {
		return err
	}
	if s.BundleID != "" {
		if _, err := a.d.RoutingBundles.GetBundle(ctx, act.OrgID, s.BundleID); err != nil {
			if errors.Is(err, routing.ErrBundleNotFound) {
				err = &routing.FieldError{Field: "bundle_id", Message: "is not one of this organisation's bundles", Err: routing.ErrInvalidSettings}
			}
			return err
		}
	}
	if err := a.d.RoutingSettings.PutSettings(ctx, act.OrgID, s); err != nil {
		return err
	}
	a.d.RoutingChanged(act.OrgID)
	a.d.Logger.InfoContext(ctx, "routing settings updated", "org_id", act.OrgID, "user_id", act.UserID,
		"bundle_id", s.BundleID, "allow", len(s.Allow), "deny", len(s.Deny), "cache_bypass", s.CacheBypass, "aliases", len(s.Aliases), "via", via)
	return nil
}
