package web

import (
	"context"
	"errors"

	"github.com/heddle-gw/heddle/tenancy"
)

// register signs a user up from client address ip, within the address's
// attempt rate and organisation budget. A registered email is not an error:
// nothing is created and the caller answers as for a new one (see
// signupAccepted). via names the surface for the log.
func (a *API) register(ctx context.Context, ip string, in tenancy.SignupInput, via string) error {
	if err := a.d.Limiter.Allow(ip, ""); err != nil {
		return err
	}
	if err := a.d.Limiter.AllowOrg(ip); err != nil {
		return err
	}
	u, o, err := a.d.Accounts.Signup(ctx, in)
	if errors.Is(err, tenancy.ErrEmailTaken) {
		a.d.Logger.InfoContext(ctx, "sign-up for a registered email: nothing created", "via", via)
		return nil
	}
	if err != nil {
		return err
	}
	a.d.Logger.InfoContext(ctx, "user signed up", "user_id", u.ID, "org_id", o.ID, "via", via)
	return nil
}
