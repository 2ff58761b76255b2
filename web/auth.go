package web

import (
	"crypto/subtle"
	"errors"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"github.com/heddle-gw/heddle/tenancy"
)

// Auth is the verified console session of a request.
type Auth struct {
	SessionID string
	UserID    string
	OrgID     string // the session's current organisation
	// ViaCookie is true when the session came from the cookie (so
	// state-changing requests needed the CSRF token).
	ViaCookie bool
}

type authKey struct{}

// AuthOf returns the request's Auth set by RequireAuth, or nil.
func AuthOf(c *fiber.Ctx) *Auth {
	a, _ := c.Locals(authKey{}).(*Auth)
	return a
}

// RequireAuth authenticates the request by `Authorization: Bearer <access
// JWT>` or the session cookie; cookie-authenticated state-changing requests
// must carry the CSRF token. It stores the result for AuthOf.
func (a *API) RequireAuth(c *fiber.Ctx) error {
	auth, err := a.authenticate(c)
	if err != nil {
		return a.fail(c, err)
	}
	if auth == nil {
		return a.fail(c, errUnauthenticated)
	}
	c.Locals(authKey{}, auth)
	return c.Next()
}

// authenticate returns the request's Auth, nil when it carries no
// credentials at all, or an error for bad ones (or a missing CSRF token).
func (a *API) authenticate(c *fiber.Ctx) (*Auth, error) {
	var token string
	viaCookie := false
	if h := c.Get(fiber.HeaderAuthorization); h != "" {
		scheme, rest, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(rest) == "" {
			return nil, tenancy.ErrUnauthorized
		}
		token = utils.CopyString(strings.TrimSpace(rest))
	} else if v := c.Cookies(SessionCookie); v != "" {
		token, viaCookie = utils.CopyString(v), true
	} else {
		return nil, nil
	}
	info, err := a.d.Sessions.Verify(c.UserContext(), token)
	if err != nil {
		return nil, err
	}
	if viaCookie && !safeMethod(c.Method()) && !a.csrfOK(c, info.SessionID) {
		return nil, errCSRF
	}
	return &Auth{SessionID: info.SessionID, UserID: info.UserID, OrgID: info.OrgID, ViaCookie: viaCookie}, nil
}

func safeMethod(m string) bool {
	return m == fiber.MethodGet || m == fiber.MethodHead || m == fiber.MethodOptions
}

// csrfOK checks the double-submit token: the X-CSRF-Token header must equal
// the heddle_csrf cookie (constant time) and be this session's token.
func (a *API) csrfOK(c *fiber.Ctx, sessionID string) bool {
	header, cookie := c.Get(CSRFHeader), c.Cookies(CSRFCookie)
	if header == "" || cookie == "" {
		return false
	}
	if subtle.ConstantTimeCompare([]byte(header), []byte(cookie)) != 1 {
		return false
	}
	return a.d.Sessions.CheckCSRF(sessionID, header)
}

// actorKey holds a request's resolved actor (see actor).
type actorKey struct{}

type resolvedActor struct {
	act tenancy.Actor
	err error
}

// actor resolves the caller's role in the session's current organisation,
// once per request: the console's session check and the page handler both
// need it, and it is a store read.
func (a *API) actor(c *fiber.Ctx) (tenancy.Actor, error) {
	if r, ok := c.Locals(actorKey{}).(resolvedActor); ok {
		return r.act, r.err
	}
	auth := AuthOf(c)
	act, err := a.d.Accounts.Actor(c.UserContext(), auth.UserID, auth.OrgID)
	if errors.Is(err, tenancy.ErrNotFound) {
		err = errNoOrg
	}
	c.Locals(actorKey{}, resolvedActor{act: act, err: err})
	return act, err
}

// orgActor resolves the caller's role in the organisation named by the
// :id path parameter; non-members get ErrNotFound.
func (a *API) orgActor(c *fiber.Ctx) (tenancy.Actor, error) {
	return a.d.Accounts.Actor(c.UserContext(), AuthOf(c).UserID, param(c, "id"))
}

// param returns a copy of a path parameter (fiber reuses its buffers).
func param(c *fiber.Ctx, name string) string { return utils.CopyString(c.Params(name)) }
