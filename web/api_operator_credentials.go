package web

import (
	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/tenancy"
)

// platformActor is the operator acting on the platform organisation's
// credentials (the platform credentials); the operator role, checked by
// requireOperator, is what entitles them.
func platformActor(c *fiber.Ctx) tenancy.Actor {
	return tenancy.Actor{UserID: AuthOf(c).UserID, OrgID: credits.PlatformOrgID, Role: tenancy.RoleOwner}
}

func (a *API) opCredentials(c *fiber.Ctx) error { return a.sendCredentials(c, platformActor(c)) }

// opAddCredential uploads a platform credential (sealed under the
// platform's data key); with "test": true it is stored only if it works.
func (a *API) opAddCredential(c *fiber.Ctx) error {
	var req credentialRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	ctx := c.UserContext()
	in := tenancy.CredentialInput{Provider: req.Provider, Label: req.Label, Secret: req.Secret, BaseURL: req.BaseURL}
	if req.Test {
		checked, err := a.d.Credentials.CheckInput(in)
		if err != nil {
			return a.fail(c, err)
		}
		if err := a.runTest(ctx, credits.PlatformOrgID, checked.Provider, checked.BaseURL, checked.Secret); err != nil {
			return a.fail(c, err)
		}
	}
	cred, err := a.d.Credentials.Add(ctx, platformActor(c), in)
	if err != nil {
		return a.fail(c, err)
	}
	a.d.Logger.InfoContext(ctx, "platform credential added", "credential_id", cred.ID, "provider", cred.Provider, "operator", AuthOf(c).UserID)
	return c.Status(fiber.StatusCreated).JSON(viewCredential(cred))
}

func (a *API) opTestCredential(c *fiber.Ctx) error {
	ctx := c.UserContext()
	s, err := a.d.Credentials.Reveal(ctx, platformActor(c), param(c, "id"))
	if err != nil {
		return a.fail(c, err)
	}
	if err := a.runTest(ctx, credits.PlatformOrgID, s.Provider, s.BaseURL, s.Value); err != nil {
		return a.fail(c, err)
	}
	return c.JSON(fiber.Map{"ok": true, "credential_id": s.ID, "provider": s.Provider})
}

func (a *API) opRotateCredential(c *fiber.Ctx) error {
	var req rotateRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	cred, err := a.d.Credentials.Rotate(c.UserContext(), platformActor(c), param(c, "id"), req.Secret)
	if err != nil {
		return a.fail(c, err)
	}
	a.d.Logger.InfoContext(c.UserContext(), "platform credential rotated", "credential_id", cred.ID, "operator", AuthOf(c).UserID)
	return c.JSON(viewCredential(cred))
}

func (a *API) opDeleteCredential(c *fiber.Ctx) error {
	if err := a.d.Credentials.Delete(c.UserContext(), platformActor(c), param(c, "id")); err != nil {
		return a.fail(c, err)
	}
	a.d.Logger.InfoContext(c.UserContext(), "platform credential deleted", "credential_id", param(c, "id"), "operator", AuthOf(c).UserID)
	return c.SendStatus(fiber.StatusNoContent)
}
