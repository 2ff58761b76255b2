package app

import (
	"context"
	"fmt"

	"github.com/heddle-gw/heddle/billing"
	"github.com/heddle-gw/heddle/credits"
	"github.com/heddle-gw/heddle/gateway"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/tenancy"
)

// authAdapter presents tenancy's Authenticator as the gateway's, with the
// caller's limits resolved against its organisation's plan (callerLimits).
type authAdapter struct {
	a       *tenancy.Authenticator
	plans   orgPlans
	budgets *billing.OrgBudgets
	// orgDefault is HEDDLE_ORG_CONCURRENCY, the ceiling of an organisation's
	// own cap without a plan default.
	orgDefault int
}

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
	lim, err := callerLimits(ctx, x.plans, x.budgets, p.OrgID, p.Limits, x.orgDefault)
	if err != nil {
		return gateway.Caller{}, err
	}
	c := gateway.Caller{OrgID: p.OrgID, KeyID: p.KeyID, KeyPrefix: p.KeyPrefix, Policy: string(p.Policy), Alpha: p.Alpha, Tags: p.Tags,
		Limits: lim}
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
