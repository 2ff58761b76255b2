package web

import (
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/web/views/pages/orgs"
)

// orgsPage handles GET /orgs: the signed-in user's organisations.
func (c *Console) orgsPage(ctx *fiber.Ctx) error {
	p, err := c.orgsProps(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	return c.render(ctx, fiber.StatusOK, orgs.Page(p))
}

func (c *Console) orgsProps(ctx *fiber.Ctx) (orgs.PageProps, error) {
	a := AuthOf(ctx)
	p := orgs.PageProps{Layout: c.layoutFor(ctx, "Organisations", "orgs")}
	list, err := c.d.Accounts.Orgs(ctx.UserContext(), a.UserID)
	if err != nil {
		return p, err
	}
	for _, m := range list {
		p.Orgs = append(p.Orgs, orgs.Org{ID: m.Org.ID, Name: m.Org.Name, Role: string(m.Role), Current: m.Org.ID == a.OrgID})
	}
	return p, nil
}

// switchOrg handles POST /orgs/:id/switch: the session moves to an
// organisation the user belongs to (another is 404, as in the admin API).
func (c *Console) switchOrg(ctx *fiber.Ctx) error {
	a := AuthOf(ctx)
	uctx := ctx.UserContext()
	act, err := c.d.Accounts.Actor(uctx, a.UserID, param(ctx, "id"))
	if err != nil {
		return c.fail(ctx, err)
	}
	if err := c.d.Sessions.SwitchOrg(uctx, a.SessionID, act.OrgID); err != nil {
		return c.fail(ctx, err)
	}
	return ctx.Redirect("/dashboard", fiber.StatusSeeOther)
}

// createOrg handles POST /orgs: a new organisation owned by the user, who
// switches to it; an invalid name re-renders the page with 422.
func (c *Console) createOrg(ctx *fiber.Ctx) error {
	a := AuthOf(ctx)
	uctx := ctx.UserContext()
	name := formValue(ctx, "name")
	err := c.d.Limiter.AllowOrg(utils.CopyString(ctx.IP()))
	var o *tenancy.Org
	if err == nil {
		o, err = c.d.Accounts.CreateOrg(uctx, a.UserID, name)
	}
	if err == nil {
		err = c.d.Sessions.SwitchOrg(uctx, a.SessionID, o.ID)
	}
	if err != nil {
		if !isInvalidInput(err) {
			return c.fail(ctx, err)
		}
		p, perr := c.orgsProps(ctx)
		if perr != nil {
			return c.fail(ctx, perr)
		}
		p.Name = name
		p.Fields, p.Error = fieldErrors(err)
		return c.render(ctx, fiber.StatusUnprocessableEntity, orgs.Page(p))
	}
	c.d.Logger.InfoContext(uctx, "organisation created", "user_id", a.UserID, "org_id", o.ID, "via", "console")
	return ctx.Redirect("/dashboard", fiber.StatusSeeOther)
}
