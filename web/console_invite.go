package web

import (
	"errors"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/web/views/pages/auth"
)

// invitePath is the console link an invitation's token opens.
func invitePath(token string) string { return "/invite/" + token }

// invitePage handles GET /invite/:token: the form that accepts the
// invitation, as the signed-in user or with the invited account's password.
// Whether the token is valid shows only on accepting (the page reveals
// nothing about an invitation to whoever holds a link).
func (c *Console) invitePage(ctx *fiber.Ctx) error {
	p, _, err := c.inviteProps(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	return c.render(ctx, fiber.StatusOK, auth.Invite(p))
}

// inviteProps reads the session once (a second read could rotate the
// refresh token twice) and returns the page's props with it; s is nil for a
// visitor.
func (c *Console) inviteProps(ctx *fiber.Ctx) (p auth.InviteProps, s *consoleSession, err error) {
	p = auth.InviteProps{
		Layout: c.anonLayout(ctx, "Join an organisation"), FormToken: c.formToken(ctx), Token: param(ctx, "token"),
	}
	s, err = c.session(ctx)
	if err != nil && !errors.Is(err, tenancy.ErrUnauthorized) {
		return p, nil, err
	}
	if s != nil {
		u, err := c.d.Accounts.User(ctx.UserContext(), s.UserID)
		if err != nil {
			return p, nil, err
		}
		p.SignedInAs = u.Email
	}
	return p, s, nil
}

// acceptInvite handles POST /invite/:token: the member joins, the session
// (a new one for a visitor) moves to the organisation, and the browser goes
// to its dashboard. A refused acceptance re-renders the form with the
// reason and the error table's status (410 for a used or expired token, 403
// for another account's invitation, 401 for a wrong password, 422 for a
// password too short for a new account).
func (c *Console) acceptInvite(ctx *fiber.Ctx) error {
	if !formTokenOK(ctx) {
		return c.fail(ctx, errFormToken)
	}
	p, s, err := c.inviteProps(ctx)
	if err != nil {
		return c.fail(ctx, err)
	}
	uctx := ctx.UserContext()
	err = c.d.Limiter.Allow(utils.CopyString(ctx.IP()), "")
	var u *tenancy.User
	var m *tenancy.Membership
	if err == nil {
		in := tenancy.AcceptInput{Password: utils.CopyString(ctx.FormValue("password"))}
		if s != nil {
			in = tenancy.AcceptInput{UserID: s.UserID}
		}
		u, m, err = c.d.Members.Accept(uctx, p.Token, in)
		if errors.Is(err, tenancy.ErrInvalidLogin) {
			c.d.Limiter.Failed(utils.CopyString(ctx.IP()), "") // as a failed log-in
		}
	}
	if err == nil {
		if s != nil {
			err = c.d.Sessions.SwitchOrg(uctx, s.SessionID, m.OrgID)
		} else {
			var tok *tenancy.Tokens
			if tok, err = c.d.Sessions.Start(uctx, u.ID, m.OrgID); err == nil {
				c.api.setSessionCookies(ctx, tok)
			}
		}
	}
	if err != nil {
		status, msg, _ := c.errorText(ctx, err)
		if errors.Is(err, tenancy.ErrInvalidInput) {
			status = fiber.StatusUnprocessableEntity
		}
		return c.render(ctx, status, auth.Invite(withError(p, msg)))
	}
	c.d.Logger.InfoContext(uctx, "invitation accepted", "user_id", u.ID, "org_id", m.OrgID, "role", string(m.Role), "via", "console")
	return ctx.Redirect("/dashboard", fiber.StatusSeeOther)
}

func withError(p auth.InviteProps, msg string) auth.InviteProps {
	p.Error = msg
	return p
}
