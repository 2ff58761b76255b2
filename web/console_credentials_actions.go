package web

import (
	"errors"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/web/views/pages/credentials"
)

// credentialsPageWith renders the whole credentials page with row replacing
// the row of the same id (the answer to a test or rotation without htmx).
func (c *Console) credentialsPageWith(ctx *fiber.Ctx, act tenancy.Actor, status int, row credentials.Row) error {
	rows, err := c.credentialRows(ctx, act)
	if err != nil {
		return c.fail(ctx, err)
	}
	for i := range rows {
		if rows[i].ID == row.ID {
			rows[i] = row
		}
	}
	lp := c.layoutFor(ctx, "Credentials", "credentials")
	return c.render(ctx, status, credentials.Page(credentials.PageProps{Layout: lp, Rows: rows, Form: credentials.FormProps{CSRF: lp.CSRF}}))
}

// testCredential handles POST /credentials/:id/test: it runs the admin
// API's credential test (the stored secret, decrypted only for the call)
// and answers the result for the row's test cell (htmx) or the page with
// it. A failed test is 422 with the provider's answer, the secret scrubbed.
func (c *Console) testCredential(ctx *fiber.Ctx) error {
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	uctx := ctx.UserContext()
	id := param(ctx, "id")
	cred, err := c.d.Credentials.Get(uctx, act, id)
	if err != nil {
		return c.fail(ctx, err)
	}
	s, err := c.d.Credentials.Reveal(uctx, act, id)
	if err == nil {
		err = c.api.runTest(uctx, act.OrgID, s.Provider, s.BaseURL, s.Value)
	}
	res := credentials.TestResult{OK: err == nil}
	status := fiber.StatusOK
	if err != nil {
		var known bool
		status, res.Message, known = consoleError(err)
		if !known {
			return c.fail(ctx, err)
		}
	}
	c.d.Logger.InfoContext(uctx, "credential tested", "org_id", act.OrgID, "credential_id", id, "provider", cred.Provider,
		"ok", res.OK, "via", "console")
	if isHTMX(ctx) {
		return c.render(ctx, status, credentials.Result(res))
	}
	row := credentialRow(cred, act)
	row.Test = &res
	return c.credentialsPageWith(ctx, act, status, row)
}

// rotateCredential handles POST /credentials/:id/rotate: the new secret
// replaces the old one (sealed by the vault, never shown back), after a
// test of it when "test" is checked. The answer is the updated row (htmx)
// or a redirect to the list; a refused rotation shows the reason in the
// row's open rotate form.
func (c *Console) rotateCredential(ctx *fiber.Ctx) error {
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	uctx := ctx.UserContext()
	id := param(ctx, "id")
	cur, err := c.d.Credentials.Get(uctx, act, id)
	if err != nil {
		return c.fail(ctx, err)
	}
	secret := utils.CopyString(ctx.FormValue("secret"))
	if ctx.FormValue("test") != "" {
		err = c.testNewSecret(ctx, act, cur, secret)
	}
	var cred *tenancy.Credential
	if err == nil {
		cred, err = c.d.Credentials.Rotate(uctx, act, id, secret)
	}
	if err != nil {
		_, msg, known := consoleError(err)
		status := formStatus(err)
		if !known || errors.Is(err, tenancy.ErrNotFound) {
			return c.fail(ctx, err)
		}
		row := credentialRow(cur, act)
		row.RotateError = msg
		if isHTMX(ctx) {
			return c.render(ctx, status, credentials.CredentialRow(row, sessionOf(ctx).CSRF))
		}
		return c.credentialsPageWith(ctx, act, status, row)
	}
	c.d.Logger.InfoContext(uctx, "credential rotated", "org_id", cred.OrgID, "credential_id", cred.ID, "provider", cred.Provider, "via", "console")
	if !isHTMX(ctx) {
		return ctx.Redirect("/credentials", fiber.StatusSeeOther)
	}
	row := credentialRow(cred, act)
	row.JustRotated = true
	return c.render(ctx, fiber.StatusOK, credentials.CredentialRow(row, sessionOf(ctx).CSRF))
}

// testNewSecret tests secret as cur's replacement, as the admin API's
// rotate with "test": true does.
func (c *Console) testNewSecret(ctx *fiber.Ctx, act tenancy.Actor, cur *tenancy.Credential, secret string) error {
	if !act.Can(tenancy.PermManageCredentials) {
		return tenancy.ErrForbidden
	}
	checked, err := c.d.Credentials.CheckInput(tenancy.CredentialInput{Provider: cur.Provider, Secret: secret, BaseURL: cur.BaseURL})
	if err != nil {
		return err
	}
	return c.api.runTest(ctx.UserContext(), act.OrgID, checked.Provider, checked.BaseURL, checked.Secret)
}
