package web

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"github.com/heddle-gw/heddle/tenancy"
)

// FormCookie holds the pre-session token of the log-in and sign-up forms
// (double submit: the form echoes it in form_token).
const FormCookie = "heddle_form"

// CSRFField is the form field console forms carry the session's CSRF token
// in (htmx requests send it in CSRFHeader instead).
const CSRFField = "csrf_token"

// consoleSession is the signed-in user of a console request.
type consoleSession struct {
	Auth
	CSRF    string
	Email   string
	OrgName string
}

type consoleSessionKey struct{}

func sessionOf(ctx *fiber.Ctx) *consoleSession {
	s, _ := ctx.Locals(consoleSessionKey{}).(*consoleSession)
	return s
}

// requireSession authenticates console requests by the session cookie,
// refreshing an expired access token with the refresh cookie. Anonymous
// visitors are sent to /login; state-changing requests must carry the CSRF
// token (header or form field) matching the heddle_csrf cookie.
func (c *Console) requireSession(ctx *fiber.Ctx) error {
	auth, err := c.session(ctx)
	if err != nil && !errors.Is(err, tenancy.ErrUnauthorized) {
		return c.fail(ctx, err)
	}
	if auth == nil {
		return c.toLogin(ctx)
	}
	if !safeMethod(ctx.Method()) && !c.csrfOK(ctx, auth.SessionID) {
		return c.fail(ctx, errCSRF)
	}
	ctx.Locals(authKey{}, &auth.Auth)
	s := &consoleSession{Auth: auth.Auth, CSRF: c.d.Sessions.CSRFToken(auth.SessionID)}
	uctx := ctx.UserContext()
	if u, err := c.d.Accounts.User(uctx, auth.UserID); err == nil {
		s.Email = u.Email
	}
	switch act, err := c.api.actor(ctx); {
	case err == nil:
		if o, err := c.d.Accounts.Org(uctx, act); err == nil {
			s.OrgName = o.Name
		}
	case errors.Is(err, errNoOrg):
		// No longer a member of the session's organisation (removed): the
		// session keeps no organisation, so no page reads its data.
		auth.OrgID, s.OrgID = "", ""
	}
	ctx.Locals(consoleSessionKey{}, s)
	return ctx.Next()
}

// session verifies the access cookie, or rotates the refresh cookie when
// the access token no longer verifies. It returns nil, ErrUnauthorized when
// neither works.
func (c *Console) session(ctx *fiber.Ctx) (*consoleSession, error) {
	sessions := c.d.Sessions
	uctx := ctx.UserContext()
	if tok := ctx.Cookies(SessionCookie); tok != "" {
		info, err := sessions.Verify(uctx, utils.CopyString(tok))
		if err == nil {
			return &consoleSession{Auth: Auth{SessionID: info.SessionID, UserID: info.UserID, OrgID: info.OrgID, ViaCookie: true}}, nil
		}
		if !errors.Is(err, tenancy.ErrUnauthorized) {
			return nil, err
		}
	}
	refresh := ctx.Cookies(RefreshCookie)
	if refresh == "" {
		return nil, tenancy.ErrUnauthorized
	}
	tok, err := sessions.Refresh(uctx, utils.CopyString(refresh))
	if err != nil {
		c.api.clearSessionCookies(ctx)
		return nil, err
	}
	c.api.setSessionCookies(ctx, tok)
	info, err := sessions.Verify(uctx, tok.Access)
	if err != nil {
		return nil, err
	}
	return &consoleSession{Auth: Auth{SessionID: info.SessionID, UserID: info.UserID, OrgID: info.OrgID, ViaCookie: true}}, nil
}

// csrfOK checks the double-submit token of a console request: the header
// (htmx) or form field must equal the heddle_csrf cookie and be this
// session's token.
func (c *Console) csrfOK(ctx *fiber.Ctx, sessionID string) bool {
	token := ctx.Get(CSRFHeader)
	if token == "" {
		token = ctx.FormValue(CSRFField)
	}
	cookie := ctx.Cookies(CSRFCookie)
	if token == "" || cookie == "" || subtle.ConstantTimeCompare([]byte(token), []byte(cookie)) != 1 {
		return false
	}
	return c.d.Sessions.CheckCSRF(sessionID, token)
}

// toLogin sends an anonymous visitor to the log-in page, remembering where
// they were going; htmx requests get HX-Redirect.
func (c *Console) toLogin(ctx *fiber.Ctx) error {
	target := "/login"
	if ctx.Method() == fiber.MethodGet && !isHTMX(ctx) {
		target += "?next=" + url.QueryEscape(ctx.OriginalURL())
	}
	if isHTMX(ctx) {
		ctx.Set("HX-Redirect", target)
		return ctx.SendStatus(fiber.StatusUnauthorized)
	}
	return ctx.Redirect(target, fiber.StatusSeeOther)
}

// formToken returns the visitor's pre-session form token, setting the
// cookie when there is none yet.
func (c *Console) formToken(ctx *fiber.Ctx) string {
	if v := ctx.Cookies(FormCookie); len(v) == 64 {
		return utils.CopyString(v)
	}
	b := make([]byte, 32)
	rand.Read(b)
	v := hex.EncodeToString(b)
	ctx.Cookie(&fiber.Cookie{
		Name: FormCookie, Value: v, Path: "/", HTTPOnly: true,
		SameSite: fiber.CookieSameSiteStrictMode, Secure: c.d.CookieSecure,
	})
	return v
}

// formValue returns a copy of a trimmed form field (fiber reuses its
// buffers, and services may keep the strings they are given).
func formValue(ctx *fiber.Ctx, name string) string {
	return strings.TrimSpace(utils.CopyString(ctx.FormValue(name)))
}

// formTokenOK checks a log-in or sign-up post's double-submit token.
func formTokenOK(ctx *fiber.Ctx) bool {
	form, cookie := ctx.FormValue("form_token"), ctx.Cookies(FormCookie)
	return form != "" && cookie != "" && subtle.ConstantTimeCompare([]byte(form), []byte(cookie)) == 1
}

// safeNext keeps a post-login redirect on this site's console.
func safeNext(next string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.Contains(next, "\\") ||
		strings.HasPrefix(next, "/login") || strings.HasPrefix(next, "/signup") || strings.HasPrefix(next, "/api/") {
		return "/dashboard"
	}
	return next
}
