package app

import (
	"context"
	"fmt"

	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/tenancy"
)

// authAdapter presents tenancy's Authenticator as the gateway's.
type authAdapter struct{ a *tenancy.Authenticator }

func (x authAdapter) Authenticate(ctx context.Context, presented string) (gateway.Caller, error) {
	p, err := x.a.Authenticate(ctx, presented)
	if err != nil {
		return gateway.Caller{}, fmt.Errorf("%w: %w", gateway.ErrUnauthorized, err)
	}
	c := gateway.Caller{OrgID: p.OrgID, KeyID: p.KeyID, KeyPrefix: p.KeyPrefix, Policy: string(p.Policy), Alpha: p.Alpha}
	for _, s := range p.Scopes {
		c.Scopes = append(c.Scopes, string(s))
	}
	return c, nil
}
