package web

import (
	"context"
	"errors"

	"github.com/heddle-gw/heddle/tenancy"
)

// checkLogin checks email and password from client address ip through the
// login limiter (see tenancy.LoginLimiter for the scheme): a barred attempt
// is a *tenancy.RateLimitError before any password is checked; a wrong
// password or unknown email is recorded as a failure, a success clears the
// address's failures on that account.
func (a *API) checkLogin(ctx context.Context, ip, email, password string) (*tenancy.User, error) {
	if err := a.d.Limiter.Allow(ip, email); err != nil {
		return nil, err
	}
	u, err := a.d.Accounts.Login(ctx, email, password)
	switch {
	case err == nil:
		a.d.Limiter.Succeeded(ip, email)
	case errors.Is(err, tenancy.ErrInvalidLogin):
		a.d.Limiter.Failed(ip, email)
	}
	return u, err
}
