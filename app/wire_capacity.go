package app

import "context"

// orgConcurrency is dispatch.Deps.OrgConcurrency: the organisation's own cap
// from its budget settings (cached per replica like every per-organisation
// setting; the guard read them just before, so this is a cache hit). A read
// error keeps the operator's default: the cap protects capacity, not money.
func (c *components) orgConcurrency(ctx context.Context, orgID string) int {
	s, err := c.orgBudgets.Get(ctx, orgID)
	if err != nil {
		return 0
	}
	return s.MaxConcurrency
}
