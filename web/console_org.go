package web

import (
	"errors"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/web/views/components"
	"github.com/heddle-gw/heddle/web/views/pages/org"
)

// grantable lists the roles act may give: owners any, admins all but owner,
// others none.
func grantable(act tenancy.Actor) []string {
	if !act.Can(tenancy.PermManageMembers) {
		return nil
	}
	if act.Role == tenancy.RoleOwner {
		return org.Roles
	}
	return org.Roles[1:]
}

// memberRow is the view of m for act, with the controls act may use on it
// (the service still decides; this only hides what would be refused).
func memberRow(m tenancy.Member, act tenancy.Actor, csrf string) org.Member {
	manage := act.Can(tenancy.PermManageMembers)
	mayTouch := manage && (act.Role == tenancy.RoleOwner || m.Role != tenancy.RoleOwner)
	you := m.UserID == act.UserID
	return org.Member{
		UserID: m.UserID, Email: m.Email, Role: string(m.Role), Joined: components.Time(m.CreatedAt), You: you,
		// Leaving the organisation from its own page would strand the session
		// there, so the viewer's own row has no remove button.
		CanChange: mayTouch, CanRemove: mayTouch && !you, Roles: grantable(act), CSRF: csrf,
	}
}

// orgProps loads everything the organisation page shows.
func (c *Console) orgProps(ctx *fiber.Ctx, act tenancy.Actor) (org.PageProps, error) {
	uctx := ctx.UserContext()
	o, err := c.d.Accounts.Org(uctx, act)
	if err != nil {
		return org.PageProps{}, err
	}
	lp := c.layoutFor(ctx, "Organisation", "org")
	p := org.PageProps{
		Layout: lp, Role: string(act.Role), CanManage: act.Can(tenancy.PermManageMembers),
		Org:  org.Info{ID: o.ID, Name: o.Name, Slug: o.Slug, Created: components.Time(o.CreatedAt)},
		Form: c.emptyInviteForm(act, lp.CSRF),
	}
	ms, err := c.d.Members.List(uctx, act)
	if err != nil {
		return org.PageProps{}, err
	}
	for _, m := range ms {
		p.Members = append(p.Members, memberRow(m, act, lp.CSRF))
	}
	if p.CanManage {
		if p.Invitations, err = c.invitationRows(ctx, act); err != nil {
			return org.PageProps{}, err
		}
	}
	if p.Privacy, err = c.privacySection(ctx, act); err != nil {
		return org.PageProps{}, err
	}
	return p, nil
}

func (c *Console) emptyInviteForm(act tenancy.Actor, csrf string) org.InviteForm {
	return org.InviteForm{CSRF: csrf, Role: string(tenancy.RoleMember), Roles: grantable(act)}
}

// invitationRows lists the organisation's pending invitations.
func (c *Console) invitationRows(ctx *fiber.Ctx, act tenancy.Actor) ([]org.Invitation, error) {
	csrf := ""
	if s := sessionOf(ctx); s != nil {
		csrf = s.CSRF
	}
	invs, err := c.d.Members.Invitations(ctx.UserContext(), act)
	if err != nil {
		return nil, err
	}
	now := c.d.Now()
	var rows []org.Invitation
	for _, i := range invs {
		if !now.Before(i.ExpiresAt) {
			continue
		}
		rows = append(rows, org.Invitation{
			ID: i.ID, Email: i.Email, Role: string(i.Role), Created: components.Time(i.CreatedAt), Expires: components.Time(i.ExpiresAt),
			CSRF: csrf,
		})
	}
	return rows, nil
}

// orgPage handles GET /org: the current organisation and its members,
// editable by admins and owners.
func (c *Console) orgPage(ctx *fiber.Ctx) error {
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	p, err := c.orgProps(ctx, act)
	if err != nil {
		return c.fail(ctx, err)
	}
	return c.render(ctx, fiber.StatusOK, org.Page(p))
}

// orgInvite handles POST /org/invitations. The response shows the
// invitation token once; a refused invitation re-renders the form with the
// reason (422 invalid, 409 already a member, 403 not allowed).
func (c *Console) orgInvite(ctx *fiber.Ctx) error {
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	uctx := ctx.UserContext()
	csrf := sessionOf(ctx).CSRF
	form := org.InviteForm{CSRF: csrf, Email: formValue(ctx, "email"), Role: formValue(ctx, "role"), Roles: grantable(act)}
	inv, token, err := c.d.Members.Invite(uctx, act, form.Email, tenancy.Role(form.Role))
	if err != nil {
		switch {
		case isInvalidInput(err):
			form.Fields, form.Error = fieldErrors(err)
		case errors.Is(err, tenancy.ErrConflict):
			form.Error = form.Email + " is already a member of this organisation."
		case errors.Is(err, tenancy.ErrForbidden) && !act.Can(tenancy.PermManageMembers):
			form.Error = "Only admins and owners can invite members."
		case errors.Is(err, tenancy.ErrForbidden):
			form.Error = "Your role does not allow inviting with the role " + form.Role + "."
		default:
			return c.fail(ctx, err)
		}
		status := formStatus(err)
		if isHTMX(ctx) {
			return c.render(ctx, status, org.InviteFormView(form))
		}
		p, perr := c.orgProps(ctx, act)
		if perr != nil {
			return c.fail(ctx, perr)
		}
		p.Form = form
		return c.render(ctx, status, org.Page(p))
	}
	c.d.Logger.InfoContext(uctx, "member invited", "org_id", act.OrgID, "invitation_id", inv.ID, "role", string(inv.Role), "via", "console")
	invited := org.Invited{
		Email: inv.Email, Role: string(inv.Role), Token: token, AcceptPath: "/api/v1/invitations/" + token + "/accept",
		Link:    invitePath(token),
		Expires: components.Time(inv.ExpiresAt),
	}
	if !isHTMX(ctx) {
		p, err := c.orgProps(ctx, act)
		if err != nil {
			return c.fail(ctx, err)
		}
		p.Invited = &invited
		return c.render(ctx, fiber.StatusCreated, org.Page(p))
	}
	rows, err := c.invitationRows(ctx, act)
	if err != nil {
		return c.fail(ctx, err)
	}
	return c.render(ctx, fiber.StatusCreated, org.InvitedPartial(org.InvitedProps{
		Invited: invited, Form: c.emptyInviteForm(act, csrf), Invitations: rows,
	}))
}

// formStatus is the status of a refused form: 422 for invalid input (the
// form re-renders), else the error's own.
func formStatus(err error) int {
	if isInvalidInput(err) {
		return fiber.StatusUnprocessableEntity
	}
	status, _, _ := consoleError(err)
	return status
}

// member returns the organisation's member userID as act sees it.
func (c *Console) member(ctx *fiber.Ctx, act tenancy.Actor, userID string) (org.Member, error) {
	ms, err := c.d.Members.List(ctx.UserContext(), act)
	if err != nil {
		return org.Member{}, err
	}
	for _, m := range ms {
		if m.UserID == userID {
			return memberRow(m, act, sessionOf(ctx).CSRF), nil
		}
	}
	return org.Member{}, tenancy.ErrNotFound
}

// memberFailed answers a refused role change or removal: the member's row
// with the reason for htmx, the whole page with it otherwise.
func (c *Console) memberFailed(ctx *fiber.Ctx, act tenancy.Actor, userID string, err error) error {
	_, msg, known := consoleError(err)
	status := formStatus(err)
	row, lerr := c.member(ctx, act, userID)
	if !known || lerr != nil {
		// Unexpected, or no such member (another organisation's user, say):
		// the whole error.
		return c.fail(ctx, err)
	}
	if errors.Is(err, tenancy.ErrLastOwner) {
		msg = "An organisation needs at least one owner: make someone else owner first."
	}
	if isHTMX(ctx) {
		row.Error = msg
		return c.render(ctx, status, org.MemberRow(row))
	}
	p, perr := c.orgProps(ctx, act)
	if perr != nil {
		return c.fail(ctx, perr)
	}
	p.Error = row.Email + ": " + msg
	return c.render(ctx, status, org.Page(p))
}

// orgChangeRole handles POST /org/members/:user/role: the member's row with
// its new role for htmx (the whole page reloads when the viewer changed
// their own role, since their controls change), a redirect otherwise.
func (c *Console) orgChangeRole(ctx *fiber.Ctx) error {
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	userID := param(ctx, "user")
	role := tenancy.Role(formValue(ctx, "role"))
	if err := c.d.Members.ChangeRole(ctx.UserContext(), act, userID, role); err != nil {
		return c.memberFailed(ctx, act, userID, err)
	}
	c.d.Logger.InfoContext(ctx.UserContext(), "member role changed", "org_id", act.OrgID, "user_id", userID, "role", string(role), "via", "console")
	if !isHTMX(ctx) {
		return ctx.Redirect("/org", fiber.StatusSeeOther)
	}
	if userID == act.UserID {
		ctx.Set("HX-Refresh", "true")
		return ctx.SendStatus(fiber.StatusOK)
	}
	row, err := c.member(ctx, act, userID)
	if err != nil {
		return c.fail(ctx, err)
	}
	row.Saved = "Role changed to " + row.Role + "."
	return c.render(ctx, fiber.StatusOK, org.MemberRow(row))
}

// orgRemove handles POST /org/members/:user/remove: an empty answer that
// removes the row for htmx, a redirect otherwise.
func (c *Console) orgRemove(ctx *fiber.Ctx) error {
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	userID := param(ctx, "user")
	if err := c.d.Members.Remove(ctx.UserContext(), act, userID); err != nil {
		return c.memberFailed(ctx, act, userID, err)
	}
	c.d.Logger.InfoContext(ctx.UserContext(), "member removed", "org_id", act.OrgID, "user_id", userID, "via", "console")
	if !isHTMX(ctx) {
		return ctx.Redirect("/org", fiber.StatusSeeOther)
	}
	ctx.Set("HX-Reswap", "delete")
	return c.render(ctx, fiber.StatusOK, templ.NopComponent)
}

// orgCancelInvitation handles POST /org/invitations/:id/cancel: the
// invitation's link stops working; htmx gets an empty answer that deletes
// the row, a plain form a redirect back.
func (c *Console) orgCancelInvitation(ctx *fiber.Ctx) error {
	act, err := c.api.actor(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	id := param(ctx, "id")
	if err := c.d.Members.Cancel(ctx.UserContext(), act, id); err != nil {
		return c.fail(ctx, err)
	}
	c.d.Logger.InfoContext(ctx.UserContext(), "invitation cancelled", "org_id", act.OrgID, "invitation_id", id, "via", "console")
	if !isHTMX(ctx) {
		return ctx.Redirect("/org", fiber.StatusSeeOther)
	}
	ctx.Set("HX-Reswap", "delete")
	return c.render(ctx, fiber.StatusOK, templ.NopComponent)
}
