package sqlstore

import (
	"context"
	"errors"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/heddle-gw/heddle/credits"
)

type planRow struct {
	ID                    string    `gorm:"column:id;primaryKey"`
	Name                  string    `gorm:"column:name"`
	Providers             string    `gorm:"column:providers"`
	Models                string    `gorm:"column:models"`
	MultiplierBP          int64     `gorm:"column:multiplier_bp"`
	IncludedMonthlyMicros int64     `gorm:"column:included_monthly_micros"`
	BYOKFeeBP             int64     `gorm:"column:byok_fee_bp"`
	DefaultRPM            int       `gorm:"column:default_rpm"`
	DefaultTPM            int       `gorm:"column:default_tpm"`
	DefaultConcurrency    int       `gorm:"column:default_max_concurrency"`
	CreatedAt             time.Time `gorm:"column:created_at;autoCreateTime:false"`
	UpdatedAt             time.Time `gorm:"column:updated_at;autoUpdateTime:false"`
}

func (planRow) TableName() string { return "credit_plans" }

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func (r *planRow) plan() *credits.Plan {
	return &credits.Plan{ID: r.ID, Name: r.Name, Providers: splitList(r.Providers), Models: splitList(r.Models),
		MultiplierBP: r.MultiplierBP, IncludedMonthlyMicros: r.IncludedMonthlyMicros, BYOKFeeBP: r.BYOKFeeBP,
		Defaults:  credits.Limits{RPM: r.DefaultRPM, TPM: r.DefaultTPM, MaxConcurrency: r.DefaultConcurrency},
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

// SavePlan creates or replaces p by id.
func (s *Store) SavePlan(ctx context.Context, p *credits.Plan) error {
	row := planRow{ID: p.ID, Name: p.Name, Providers: strings.Join(p.Providers, ","), Models: strings.Join(p.Models, ","),
		MultiplierBP: p.MultiplierBP, IncludedMonthlyMicros: p.IncludedMonthlyMicros, BYOKFeeBP: p.BYOKFeeBP,
		DefaultRPM: p.Defaults.RPM, DefaultTPM: p.Defaults.TPM, DefaultConcurrency: p.Defaults.MaxConcurrency,
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
	err := s.conn(ctx).Clauses(clause.OnConflict{
		Columns: []clause.Column{{Name: "id"}},
		DoUpdates: clause.AssignmentColumns([]string{"name", "providers", "models", "multiplier_bp", "included_monthly_micros", "byok_fee_bp",
			"default_rpm", "default_tpm", "default_max_concurrency", "updated_at"}),
	}).Create(&row).Error
	return mapErr("save plan", err)
}

// Plans lists every plan by name.
func (s *Store) Plans(ctx context.Context) ([]credits.Plan, error) {
	var rows []planRow
	if err := s.conn(ctx).Order("name").Find(&rows).Error; err != nil {
		return nil, mapErr("plans", err)
	}
	out := make([]credits.Plan, len(rows))
	for i := range rows {
		out[i] = *rows[i].plan()
	}
	return out, nil
}

// PlanByID returns a plan or ErrNotFound.
func (s *Store) PlanByID(ctx context.Context, id string) (*credits.Plan, error) {
	var row planRow
	if err := s.conn(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		return nil, mapErr("plan", err)
	}
	return row.plan(), nil
}

type orgPlanRow struct {
	OrgID     string    `gorm:"column:org_id;primaryKey"`
	PlanID    string    `gorm:"column:plan_id"`
	UpdatedAt time.Time `gorm:"column:updated_at;autoUpdateTime:false"`
}

func (orgPlanRow) TableName() string { return "org_plans" }

// SetOrgPlan gives orgID the plan planID.
func (s *Store) SetOrgPlan(ctx context.Context, orgID, planID string, at time.Time) error {
	err := s.conn(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "org_id"}},
		DoUpdates: clause.AssignmentColumns([]string{"plan_id", "updated_at"}),
	}).Create(&orgPlanRow{OrgID: orgID, PlanID: planID, UpdatedAt: at}).Error
	return mapErr("set org plan", err)
}

// OrgPlan returns orgID's plan, or nil when it has none.
func (s *Store) OrgPlan(ctx context.Context, orgID string) (*credits.Plan, error) {
	var row planRow
	err := s.conn(ctx).Table("credit_plans").Select("credit_plans.*").
		Joins("JOIN org_plans ON org_plans.plan_id = credit_plans.id").Where("org_plans.org_id = ?", orgID).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, mapErr("org plan", err)
	}
	return row.plan(), nil
}
