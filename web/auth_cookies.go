package web

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/heddle-gw/heddle/tenancy"
)

// Cookie and header names of console sessions.
const (
	// SessionCookie holds the access JWT (HttpOnly).
	SessionCookie = "heddle_session"
	// RefreshCookie holds the refresh token (HttpOnly).
	RefreshCookie = "heddle_refresh"
	// CSRFCookie holds the session's CSRF token, readable by scripts so they
	// can echo it in CSRFHeader.
	CSRFCookie = "heddle_csrf"
	// CSRFHeader carries the CSRF token on state-changing requests.
	CSRFHeader = "X-CSRF-Token"
)

// setSessionCookies stores tokens in cookies: HttpOnly for the access and
// refresh tokens, SameSite=Lax for all, Secure when configured.
func (a *API) setSessionCookies(c *fiber.Ctx, t *tenancy.Tokens) {
	base := fiber.Cookie{Path: "/", SameSite: fiber.CookieSameSiteLaxMode, Secure: a.d.CookieSecure}
	access, refresh, csrf := base, base, base
	access.Name, access.Value, access.Expires, access.HTTPOnly = SessionCookie, t.Access, t.AccessExpiresAt, true
	refresh.Name, refresh.Value, refresh.Expires, refresh.HTTPOnly = RefreshCookie, t.Refresh, t.RefreshExpiresAt, true
	csrf.Name, csrf.Value, csrf.Expires = CSRFCookie, t.CSRF, t.RefreshExpiresAt
	c.Cookie(&access)
	c.Cookie(&refresh)
	c.Cookie(&csrf)
}

// clearSessionCookies expires the session cookies.
func (a *API) clearSessionCookies(c *fiber.Ctx) {
	for _, name := range []string{SessionCookie, RefreshCookie, CSRFCookie} {
		c.Cookie(&fiber.Cookie{
			Name: name, Value: "", Path: "/", Expires: time.Unix(0, 0), MaxAge: -1,
			HTTPOnly: name != CSRFCookie, SameSite: fiber.CookieSameSiteLaxMode, Secure: a.d.CookieSecure,
		})
	}
}
