package web

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/tenancy"
)

type credentialRequest struct {
	Provider string `json:"provider"`
	Label    string `json:"label"`
	Secret   string `json:"secret"`
	BaseURL  string `json:"base_url"`
	// Test checks the credential against its provider before storing it.
	Test bool `json:"test"`
}

// testFailure is a failed credential test with a message safe to show.
type testFailure struct{ msg string }

func (e *testFailure) Error() string  { return "web: credential test failed: " + e.msg }
func (e *testFailure) Public() string { return "credential test failed: " + e.msg }
func (e *testFailure) Unwrap() error  { return tenancy.ErrCredentialTest }

// testTimeout bounds one credential test.
const testTimeout = 15 * time.Second

// runTest calls the tester and scrubs the secret from any error it returns.
func (a *API) runTest(ctx context.Context, orgID, provider, baseURL, secret string) error {
	ctx, cancel := context.WithTimeout(ctx, testTimeout)
	defer cancel()
	err := a.d.Tester.Test(ctx, orgID, provider, baseURL, secret)
	if err == nil {
		return nil
	}
	msg := err.Error()
	if secret != "" {
		msg = strings.ReplaceAll(msg, secret, "[redacted]")
	}
	if utf8.RuneCountInString(msg) > 300 {
		msg = string([]rune(msg)[:300]) + "..."
	}
	return &testFailure{msg: msg}
}

// listCredentials handles GET /api/v1/credentials (never secrets).
func (a *API) listCredentials(c *fiber.Ctx) error {
	act, err := a.actor(c)
	if err != nil {
		return a.fail(c, err)
	}
	return a.sendCredentials(c, act)
}

// sendCredentials answers act's organisation's credentials (never secrets).
func (a *API) sendCredentials(c *fiber.Ctx, act tenancy.Actor) error {
	cs, err := a.d.Credentials.List(c.UserContext(), act)
	if err != nil {
		return a.fail(c, err)
	}
	out := make([]credentialView, len(cs))
	for i := range cs {
		out[i] = viewCredential(&cs[i])
	}
	return c.JSON(fiber.Map{"credentials": out})
}

// addCredential handles POST /api/v1/credentials; with "test": true the
// credential is stored only if its test passes.
func (a *API) addCredential(c *fiber.Ctx) error {
	act, err := a.actor(c)
	if err != nil {
		return a.fail(c, err)
	}
	var req credentialRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	ctx := c.UserContext()
	in := tenancy.CredentialInput{Provider: req.Provider, Label: req.Label, Secret: req.Secret, BaseURL: req.BaseURL}
	if req.Test {
		if !act.Can(tenancy.PermManageCredentials) {
			return a.fail(c, tenancy.ErrForbidden)
		}
		checked, err := a.d.Credentials.CheckInput(in)
		if err != nil {
			return a.fail(c, err)
		}
		if err := a.runTest(ctx, act.OrgID, checked.Provider, checked.BaseURL, checked.Secret); err != nil {
			return a.fail(c, err)
		}
	}
	cred, err := a.d.Credentials.Add(ctx, act, in)
	if err != nil {
		return a.fail(c, err)
	}
	a.d.Logger.InfoContext(ctx, "credential added", "org_id", cred.OrgID, "credential_id", cred.ID, "provider", cred.Provider)
	return c.Status(fiber.StatusCreated).JSON(viewCredential(cred))
}

// testCredential handles POST /api/v1/credentials/:id/test.
func (a *API) testCredential(c *fiber.Ctx) error {
	act, err := a.actor(c)
	if err != nil {
		return a.fail(c, err)
	}
	ctx := c.UserContext()
	s, err := a.d.Credentials.Reveal(ctx, act, param(c, "id"))
	if err != nil {
		return a.fail(c, err)
	}
	if err := a.runTest(ctx, act.OrgID, s.Provider, s.BaseURL, s.Value); err != nil {
		return a.fail(c, err)
	}
	return c.JSON(fiber.Map{"ok": true, "credential_id": s.ID, "provider": s.Provider})
}

type rotateRequest struct {
	Secret string `json:"secret"`
	Test   bool   `json:"test"`
}

// rotateCredential handles POST /api/v1/credentials/:id/rotate.
func (a *API) rotateCredential(c *fiber.Ctx) error {
	act, err := a.actor(c)
	if err != nil {
		return a.fail(c, err)
	}
	var req rotateRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	ctx := c.UserContext()
	id := param(c, "id")
	if req.Test {
		if !act.Can(tenancy.PermManageCredentials) {
			return a.fail(c, tenancy.ErrForbidden)
		}
		cur, err := a.d.Credentials.Get(ctx, act, id)
		if err != nil {
			return a.fail(c, err)
		}
		checked, err := a.d.Credentials.CheckInput(tenancy.CredentialInput{Provider: cur.Provider, Secret: req.Secret, BaseURL: cur.BaseURL})
		if err != nil {
			return a.fail(c, err)
		}
		if err := a.runTest(ctx, act.OrgID, checked.Provider, checked.BaseURL, checked.Secret); err != nil {
			return a.fail(c, err)
		}
	}
	cred, err := a.d.Credentials.Rotate(ctx, act, id, req.Secret)
	if err != nil {
		return a.fail(c, err)
	}
	a.d.Logger.InfoContext(ctx, "credential rotated", "org_id", cred.OrgID, "credential_id", cred.ID, "provider", cred.Provider)
	return c.JSON(viewCredential(cred))
}

// deleteCredential handles DELETE /api/v1/credentials/:id.
func (a *API) deleteCredential(c *fiber.Ctx) error {
	act, err := a.actor(c)
	if err != nil {
		return a.fail(c, err)
	}
	if err := a.d.Credentials.Delete(c.UserContext(), act, param(c, "id")); err != nil {
		return a.fail(c, err)
	}
	a.d.Logger.InfoContext(c.UserContext(), "credential deleted", "org_id", act.OrgID, "credential_id", param(c, "id"))
	return c.SendStatus(fiber.StatusNoContent)
}
