package sqlstore

import (
	"context"
	"time"

	"github.com/heddle-gw/heddle/credits"
)

// OrgSummaries reads the operator's overview in a few grouped queries
// merged here (no dialect-specific SQL).
func (s *Store) OrgSummaries(ctx context.Context, since time.Time) ([]credits.OrgSummary, error) {
	db := s.conn(ctx)
	var orgs []struct{ ID, Name, Slug string }
	if err := db.Table("orgs").Select("id, name, slug").Where("id <> ?", credits.PlatformOrgID).Order("created_at, id").Scan(&orgs).Error; err != nil {
		return nil, mapErr("org summaries: orgs", err)
	}
	var plans []struct{ OrgID, PlanID, Name string }
	if err := db.Table("org_plans").Select("org_plans.org_id, org_plans.plan_id, credit_plans.name").
		Joins("JOIN credit_plans ON credit_plans.id = org_plans.plan_id").Scan(&plans).Error; err != nil {
		return nil, mapErr("org summaries: plans", err)
	}
	var accounts []accountRow
	if err := db.Find(&accounts).Error; err != nil {
		return nil, mapErr("org summaries: accounts", err)
	}
	var spent []struct {
		OrgID string
		Total int64
	}
	if err := db.Table("credit_ledger").Select("org_id, -SUM(amount_micros) AS total").
		Where("kind = ? AND created_at >= ?", string(credits.KindDebit), since.UTC()).Group("org_id").Scan(&spent).Error; err != nil {
		return nil, mapErr("org summaries: spend", err)
	}
	var used []struct {
		OrgID      string
		LastUsedAt *time.Time
	}
	if err := db.Table("api_keys").Select("org_id, last_used_at").Where("last_used_at IS NOT NULL").Scan(&used).Error; err != nil {
		return nil, mapErr("org summaries: activity", err)
	}
	out := make([]credits.OrgSummary, len(orgs))
	at := map[string]*credits.OrgSummary{}
	for i, o := range orgs {
		out[i] = credits.OrgSummary{OrgID: o.ID, Name: o.Name, Slug: o.Slug}
		at[o.ID] = &out[i]
	}
	for _, p := range plans {
		if o := at[p.OrgID]; o != nil {
			o.PlanID, o.PlanName = p.PlanID, p.Name
		}
	}
	for _, a := range accounts {
		if o := at[a.OrgID]; o != nil {
			o.BalanceMicros, o.ReservedMicros = a.BalanceMicros, a.ReservedMicros
		}
	}
	for _, sp := range spent {
		if o := at[sp.OrgID]; o != nil {
			o.SpentMicros = sp.Total
		}
	}
	for _, u := range used {
		if o := at[u.OrgID]; o != nil && u.LastUsedAt != nil && (o.LastActivity == nil || u.LastUsedAt.After(*o.LastActivity)) {
			t := u.LastUsedAt.UTC()
			o.LastActivity = &t
		}
	}
	return out, nil
}
