package web

import (
	"errors"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/web/views/components"
	"github.com/heddle-gw/heddle/web/views/pages/credentials"
)

// credentialRows lists the organisation's credentials (never secrets).
func (c *Console) credentialRows(ctx *fiber.Ctx, act tenancy.Actor) ([]credentials.Row, error) {
	cs, err := c.d.Credentials.List(ctx.UserContext(), act)
	if err != nil {
		return nil, err
	}
	rows := make([]credentials.Row, len(cs))
	for i := range cs {
		rows[i] = credentialRow(&cs[i], act)
	}
	return rows, nil
}

// credentialRow is the list view of one credential as act sees it.
func credentialRow(cred *tenancy.Credential, act tenancy.Actor) credentials.Row {
	v := viewCredential(cred)
	return credentials.Row{
		ID: v.ID, Provider: v.Provider, Label: v.Label, BaseURL: v.BaseURL, LastFour: v.LastFour,
		Created: components.Time(v.CreatedAt), Rotated: components.TimePtr(v.RotatedAt),
		CanManage: act.Can(tenancy.PermManageCredentials),
	}
}

// credentialsPage handles GET /credentials.
func (c *Console) credentialsPage(ctx *fiber.Ctx) error {
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	rows, err := c.credentialRows(ctx, act)
	if err != nil {
		return c.fail(ctx, err)
	}
	lp := c.layoutFor(ctx, "Credentials", "credentials")
	return c.render(ctx, fiber.StatusOK, credentials.Page(credentials.PageProps{Layout: lp, Rows: rows, Form: credentials.FormProps{CSRF: lp.CSRF}}))
}

// addCredential handles POST /credentials. The secret is sealed by the
// vault and never echoed; an invalid form re-renders with 422.
func (c *Console) addCredential(ctx *fiber.Ctx) error {
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	lp := c.layoutFor(ctx, "Credentials", "credentials")
	form := credentials.FormProps{
		CSRF: lp.CSRF, Provider: formValue(ctx, "provider"),
		Label: formValue(ctx, "label"), BaseURL: formValue(ctx, "base_url"),
	}
	uctx := ctx.UserContext()
	cred, err := c.d.Credentials.Add(uctx, act, tenancy.CredentialInput{
		Provider: form.Provider, Label: form.Label, Secret: utils.CopyString(ctx.FormValue("secret")), BaseURL: form.BaseURL,
	})
	if err != nil {
		status := fiber.StatusUnprocessableEntity
		switch {
		case isInvalidInput(err):
			form.Fields, form.Error = fieldErrors(err)
		case errors.Is(err, tenancy.ErrConflict):
			form.Error = "This organisation already has a credential for " + form.Provider + "; delete it first."
			status = fiber.StatusConflict
		default:
			return c.fail(ctx, err)
		}
		if isHTMX(ctx) {
			return c.render(ctx, status, credentials.Form(form))
		}
		rows, lerr := c.credentialRows(ctx, act)
		if lerr != nil {
			return c.fail(ctx, lerr)
		}
		return c.render(ctx, status, credentials.Page(credentials.PageProps{Layout: lp, Rows: rows, Form: form}))
	}
	c.d.Logger.InfoContext(uctx, "credential added", "org_id", cred.OrgID, "credential_id", cred.ID, "provider", cred.Provider, "via", "console")
	if !isHTMX(ctx) {
		return ctx.Redirect("/credentials", fiber.StatusSeeOther)
	}
	rows, err := c.credentialRows(ctx, act)
	if err != nil {
		return c.fail(ctx, err)
	}
	return c.render(ctx, fiber.StatusCreated, credentials.Added(cred.Provider, credentials.FormProps{CSRF: lp.CSRF}, rows))
}

// deleteCredential handles POST /credentials/:id/delete: the updated list
// for htmx, a redirect otherwise.
func (c *Console) deleteCredential(ctx *fiber.Ctx) error {
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	id := param(ctx, "id")
	if err := c.d.Credentials.Delete(ctx.UserContext(), act, id); err != nil {
		return c.fail(ctx, err)
	}
	c.d.Logger.InfoContext(ctx.UserContext(), "credential deleted", "org_id", act.OrgID, "credential_id", id, "via", "console")
	if !isHTMX(ctx) {
		return ctx.Redirect("/credentials", fiber.StatusSeeOther)
	}
	rows, err := c.credentialRows(ctx, act)
	if err != nil {
		return c.fail(ctx, err)
	}
	return c.render(ctx, fiber.StatusOK, credentials.Table(rows, sessionOf(ctx).CSRF))
}
