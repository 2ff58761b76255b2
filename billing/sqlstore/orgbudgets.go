package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/heddle-gw/heddle/billing"
)

var _ billing.OrgBudgetStore = (*Store)(nil)

// orgRow is one org_budgets row.
type orgRow struct {
	OrgID              string    `gorm:"column:org_id;primaryKey"`
	DailyLimitMicros   int64     `gorm:"column:daily_limit_micros"`
	DailyMode          string    `gorm:"column:daily_mode"`
	MonthlyLimitMicros int64     `gorm:"column:monthly_limit_micros"`
	MonthlyMode        string    `gorm:"column:monthly_mode"`
	MaxConcurrency     int       `gorm:"column:max_concurrency"`
	UpdatedAt          time.Time `gorm:"column:updated_at;autoUpdateTime:false"`
}

func (orgRow) TableName() string { return "org_budgets" }

// GetOrgBudgets returns orgID's budget settings, or billing.NoOrgBudgets
// when it has none. A row with a mode other than hard or soft is an error
// (the caller fails closed).
func (s *Store) GetOrgBudgets(ctx context.Context, orgID string) (billing.OrgBudgetSettings, error) {
	var r orgRow
	err := s.db.WithContext(ctx).Where("org_id = ?", orgID).Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return billing.NoOrgBudgets, nil
	}
	if err != nil {
		return billing.OrgBudgetSettings{}, fmt.Errorf("sqlstore: get org budgets: %w", err)
	}
	out := billing.OrgBudgetSettings{
		Daily:          billing.OrgLimit{LimitMicros: r.DailyLimitMicros, Mode: billing.Mode(r.DailyMode)},
		Monthly:        billing.OrgLimit{LimitMicros: r.MonthlyLimitMicros, Mode: billing.Mode(r.MonthlyMode)},
		MaxConcurrency: r.MaxConcurrency,
		UpdatedAt:      r.UpdatedAt.UTC(),
	}
	if err := out.Validate(); err != nil {
		return billing.OrgBudgetSettings{}, fmt.Errorf("sqlstore: org budgets of %s: %w", orgID, err)
	}
	return out, nil
}

// PutOrgBudgets replaces orgID's settings in one upsert; a zero UpdatedAt
// becomes now.
func (s *Store) PutOrgBudgets(ctx context.Context, orgID string, v billing.OrgBudgetSettings) error {
	if orgID == "" {
		return fmt.Errorf("sqlstore: put org budgets: empty organisation id")
	}
	r := orgRow{
		OrgID:            orgID,
		DailyLimitMicros: v.Daily.LimitMicros, DailyMode: string(v.Daily.Mode),
		MonthlyLimitMicros: v.Monthly.LimitMicros, MonthlyMode: string(v.Monthly.Mode),
		MaxConcurrency: v.MaxConcurrency,
		UpdatedAt:      v.UpdatedAt.UTC(),
	}
	if r.UpdatedAt.IsZero() {
		r.UpdatedAt = time.Now().UTC()
	}
	err := s.db.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "org_id"}},
		DoUpdates: clause.AssignmentColumns([]string{"daily_limit_micros", "daily_mode", "monthly_limit_micros", "monthly_mode", "max_concurrency", "updated_at"}),
	}).Create(&r).Error
	if err != nil {
		return fmt.Errorf("sqlstore: put org budgets: %w", err)
	}
	return nil
}
