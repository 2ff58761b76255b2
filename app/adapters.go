package app

import (
	"context"
	"fmt"

	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/tenancy"
)

// authAdapter presents tenancy's Authenticator as the gateway's.
type authAdapter struct{ a *tenancy.Authenticator }

func (x authAdapter) Authenticate(ctx context.Context, presented string) (gateway.Caller, error) {
	p, err := x.a.Authenticate(ctx, presented)
	if err != nil {
		return gateway.Caller{}, fmt.Errorf("%w: %w", gateway.ErrUnauthorized, err)
	}
	if p.OrgID == credits.PlatformOrgID {
		// Its credentials are the platform's: a key of its own (one issued
		// before the CLI refused them) would spend them unbilled.
		return gateway.Caller{}, fmt.Errorf("%w: a key of the platform organisation", gateway.ErrUnauthorized)
	}
	c := gateway.Caller{OrgID: p.OrgID, KeyID: p.KeyID, KeyPrefix: p.KeyPrefix, Policy: string(p.Policy), Alpha: p.Alpha, Tags: p.Tags,
		Limits: gateway.Limits{RPM: p.Limits.RPM, TPM: p.Limits.TPM,
			DailyBudgetMicros: p.Limits.DailyBudgetMicros, MonthlyBudgetMicros: p.Limits.MonthlyBudgetMicros, SoftBudgets: p.Limits.SoftBudgets}}
	for _, s := range p.Scopes {
		c.Scopes = append(c.Scopes, string(s))
	}
	return c, nil
}

// orgRouterSource presents routing.OrgRouters as the gateway's RouterSource.
type orgRouterSource struct{ o *routing.OrgRouters }

func (x orgRouterSource) For(ctx context.Context, orgID string) (gateway.Router, routing.OrgSettings, error) {
	r, st, err := x.o.For(ctx, orgID)
	if err != nil {
		return nil, st, err
	}
	return r, st, nil
}
