package web

import (
	"errors"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/web/views/layout"
	"github.com/heddle-gw/heddle/web/views/pages/auth"
)

func (c *Console) anonLayout(ctx *fiber.Ctx, title string) layout.Props {
	return layout.Props{Title: title, Nonce: nonceOf(ctx)}
}

// loginPage handles GET /login; a signed-in visitor goes to the dashboard.
func (c *Console) loginPage(ctx *fiber.Ctx) error {
	if s, _ := c.session(ctx); s != nil {
		return ctx.Redirect(safeNext(ctx.Query("next")), fiber.StatusSeeOther)
	}
	return c.render(ctx, fiber.StatusOK, auth.Login(auth.LoginProps{
		Layout: c.anonLayout(ctx, "Log in"), FormToken: c.formToken(ctx), Next: safeNext(ctx.Query("next")),
	}))
}

// login handles POST /login: on success the session cookies are set (as
// the admin API sets them) and the browser goes to the dashboard; on failure
// the form re-renders with the error and the status of the error table
// (401 for a wrong password, 429 when rate limited).
func (c *Console) login(ctx *fiber.Ctx) error {
	if !formTokenOK(ctx) {
		return c.fail(ctx, errFormToken)
	}
	email, password := formValue(ctx, "email"), utils.CopyString(ctx.FormValue("password"))
	next := safeNext(utils.CopyString(ctx.FormValue("next")))
	tok, err := c.startSession(ctx, email, password)
	if err != nil {
		status, msg, _ := c.errorText(ctx, err)
		if errors.Is(err, tenancy.ErrInvalidInput) {
			status = fiber.StatusUnprocessableEntity
		}
		return c.render(ctx, status, auth.Login(auth.LoginProps{
			Layout: c.anonLayout(ctx, "Log in"), FormToken: c.formToken(ctx), Email: email, Next: next, Error: msg,
		}))
	}
	c.api.setSessionCookies(ctx, tok)
	return ctx.Redirect(next, fiber.StatusSeeOther)
}

// startSession checks the rate limit and the password and starts a session
// in the user's oldest organisation.
func (c *Console) startSession(ctx *fiber.Ctx, email, password string) (*tenancy.Tokens, error) {
	uctx := ctx.UserContext()
	u, err := c.api.checkLogin(uctx, utils.CopyString(ctx.IP()), email, password)
	if err != nil {
		return nil, err
	}
	orgs, err := c.d.Accounts.Orgs(uctx, u.ID)
	if err != nil {
		return nil, err
	}
	orgID := ""
	if len(orgs) > 0 {
		orgID = orgs[0].Org.ID
	}
	return c.d.Sessions.Start(uctx, u.ID, orgID)
}

// signupPage handles GET /signup.
func (c *Console) signupPage(ctx *fiber.Ctx) error {
	return c.render(ctx, fiber.StatusOK, auth.Signup(auth.SignupProps{
		Layout: c.anonLayout(ctx, "Sign up"), FormToken: c.formToken(ctx),
	}))
}

// signupNotice is what the log-in page says after any valid sign-up.
const signupNotice = "If this email had no account, it now has one with this password and a new organisation: log in to continue. An email that already had an account is left unchanged."

// signup handles POST /signup: a user and their organisation, answered
// alike for a new and a registered email (the log-in form with a notice and
// the email filled in, no session; see signupAccepted); an invalid form
// re-renders with 422 and the field marked.
func (c *Console) signup(ctx *fiber.Ctx) error {
	if !formTokenOK(ctx) {
		return c.fail(ctx, errFormToken)
	}
	in := tenancy.SignupInput{
		Email: formValue(ctx, "email"), Password: utils.CopyString(ctx.FormValue("password")),
		OrgName: formValue(ctx, "org_name"),
	}
	if err := c.api.register(ctx.UserContext(), utils.CopyString(ctx.IP()), in, "console"); err != nil {
		status, msg, _ := c.errorText(ctx, err)
		fields, formMsg := fieldErrors(err)
		if isInvalidInput(err) {
			status, msg = fiber.StatusUnprocessableEntity, formMsg
		}
		return c.render(ctx, status, auth.Signup(auth.SignupProps{
			Layout: c.anonLayout(ctx, "Sign up"), FormToken: c.formToken(ctx),
			Email: in.Email, OrgName: in.OrgName, Error: msg, Fields: fields,
		}))
	}
	return c.render(ctx, fiber.StatusOK, auth.Login(auth.LoginProps{
		Layout: c.anonLayout(ctx, "Log in"), FormToken: c.formToken(ctx), Email: in.Email, Next: "/dashboard",
		Notice: signupNotice,
	}))
}

// logout handles POST /logout: the session is revoked server-side and the
// cookies cleared.
func (c *Console) logout(ctx *fiber.Ctx) error {
	if err := c.d.Sessions.Revoke(ctx.UserContext(), AuthOf(ctx).SessionID); err != nil {
		return c.fail(ctx, err)
	}
	c.api.clearSessionCookies(ctx)
	if isHTMX(ctx) {
		ctx.Set("HX-Redirect", "/login")
		return ctx.SendStatus(fiber.StatusNoContent)
	}
	return ctx.Redirect("/login", fiber.StatusSeeOther)
}
