package web

import (
	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"github.com/heddle-gw/heddle/tenancy"
)

type signupRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
	OrgName  string `json:"org_name"`
}

type sessionResponse struct {
	User userView `json:"user"`
	Org  *orgView `json:"org"`
	tokensView
}

// signupAccepted is the one answer to a valid sign-up, whether or not the
// email already had an account: an answer that differed would tell anyone
// which emails are registered. No session is started (a session would be
// the difference); the new user logs in next. Without an email channel the
// remaining signal is whether that log-in works, which costs a throttled
// log-in failure or one of the address's organisations (LoginLimiter).
type signupAccepted struct {
	Status  string `json:"status"`
	Message string `json:"message"`
}

// signupMessage is signupAccepted's message.
const signupMessage = "If this email had no account, it now has one with this password and a new organisation: log in (POST /api/v1/login) to start a session. An email that already had an account is left unchanged."

// signup handles POST /api/v1/signup: a user and their organisation,
// answered 202 alike for a new and a registered email (see signupAccepted).
func (a *API) signup(c *fiber.Ctx) error {
	var req signupRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	in := tenancy.SignupInput{Email: req.Email, Password: req.Password, OrgName: req.OrgName}
	if err := a.register(c.UserContext(), utils.CopyString(c.IP()), in, "api"); err != nil {
		return a.fail(c, err)
	}
	return c.Status(fiber.StatusAccepted).JSON(signupAccepted{Status: "accepted", Message: signupMessage})
}

type loginRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

// login handles POST /api/v1/login. The session acts in the user's oldest
// organisation.
func (a *API) login(c *fiber.Ctx) error {
	var req loginRequest
	if err := a.decode(c, &req, false); err != nil {
		return a.fail(c, err)
	}
	ctx := c.UserContext()
	u, err := a.checkLogin(ctx, utils.CopyString(c.IP()), req.Email, req.Password)
	if err != nil {
		return a.fail(c, err)
	}
	orgs, err := a.d.Accounts.Orgs(ctx, u.ID)
	if err != nil {
		return a.fail(c, err)
	}
	var org *orgView
	orgID := ""
	if len(orgs) > 0 {
		v := viewOrg(&orgs[0].Org, orgs[0].Role)
		org, orgID = &v, orgs[0].Org.ID
	}
	tok, err := a.d.Sessions.Start(ctx, u.ID, orgID)
	if err != nil {
		return a.fail(c, err)
	}
	a.setSessionCookies(c, tok)
	return c.JSON(sessionResponse{User: viewUser(u), Org: org, tokensView: viewTokens(tok)})
}

type refreshRequest struct {
	RefreshToken string `json:"refresh_token"`
}

// refresh handles POST /api/v1/refresh with the refresh token in the body
// (no CSRF needed: it is not ambient) or in its cookie (CSRF required).
func (a *API) refresh(c *fiber.Ctx) error {
	var req refreshRequest
	if err := a.decode(c, &req, true); err != nil {
		return a.fail(c, err)
	}
	token := req.RefreshToken
	if token == "" {
		token = utils.CopyString(c.Cookies(RefreshCookie))
		if token == "" {
			return a.fail(c, errUnauthenticated)
		}
		if !a.csrfOK(c, tenancy.RefreshSessionID(token)) {
			return a.fail(c, errCSRF)
		}
	}
	tok, err := a.d.Sessions.Refresh(c.UserContext(), token)
	if err != nil {
		a.clearSessionCookies(c)
		return a.fail(c, err)
	}
	a.setSessionCookies(c, tok)
	return c.JSON(viewTokens(tok))
}

// logout handles POST /api/v1/logout: the session is revoked server-side,
// so its access and refresh tokens stop working.
func (a *API) logout(c *fiber.Ctx) error {
	if err := a.d.Sessions.Revoke(c.UserContext(), AuthOf(c).SessionID); err != nil {
		return a.fail(c, err)
	}
	a.clearSessionCookies(c)
	return c.SendStatus(fiber.StatusNoContent)
}

type meResponse struct {
	User      userView `json:"user"`
	Org       *orgView `json:"org"`
	CSRFToken string   `json:"csrf_token"`
}

// me handles GET /api/v1/me.
func (a *API) me(c *fiber.Ctx) error {
	ctx := c.UserContext()
	auth := AuthOf(c)
	u, err := a.d.Accounts.User(ctx, auth.UserID)
	if err != nil {
		return a.fail(c, err)
	}
	resp := meResponse{User: viewUser(u), CSRFToken: a.d.Sessions.CSRFToken(auth.SessionID)}
	if act, err := a.actor(c); err == nil {
		o, err := a.d.Accounts.Org(ctx, act)
		if err != nil {
			return a.fail(c, err)
		}
		v := viewOrg(o, act.Role)
		resp.Org = &v
	}
	return c.JSON(resp)
}
