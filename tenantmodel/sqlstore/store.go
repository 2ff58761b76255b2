// Package sqlstore is tenantmodel's gorm store over the tenant_providers and
// tenant_models tables (migrations/app/*/00800_tenant_models.sql), on
// PostgreSQL or SQLite.
//
// Ring: adapter. Its only I/O is the *gorm.DB it is given; every query is
// filtered by org_id.
package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/tenancy"
	"github.com/heddle-gw/heddle/tenantmodel"
)

// Store implements tenantmodel.Store. Safe for concurrent use.
type Store struct{ db *gorm.DB }

var _ tenantmodel.Store = (*Store)(nil)

// New returns a store over db, which must be migrated.
func New(db *gorm.DB) *Store { return &Store{db: db} }

type providerRow struct {
	OrgID        string    `gorm:"column:org_id;primaryKey"`
	Name         string    `gorm:"column:name;primaryKey"`
	BaseURL      string    `gorm:"column:base_url"`
	Format       string    `gorm:"column:format"`
	CredentialID string    `gorm:"column:credential_id"`
	CreatedBy    string    `gorm:"column:created_by"`
	CreatedAt    time.Time `gorm:"column:created_at;autoCreateTime:false"`
}

func (providerRow) TableName() string { return "tenant_providers" }

type modelRow struct {
	OrgID           string    `gorm:"column:org_id;primaryKey"`
	ID              string    `gorm:"column:id;primaryKey"`
	Provider        string    `gorm:"column:provider"`
	Upstream        string    `gorm:"column:upstream"`
	Format          string    `gorm:"column:format"`
	ContextWindow   int       `gorm:"column:context_window"`
	MaxOutput       int       `gorm:"column:max_output"`
	Tools           bool      `gorm:"column:tools"`
	Vision          bool      `gorm:"column:vision"`
	PriceInput      float64   `gorm:"column:price_input"`
	PriceOutput     float64   `gorm:"column:price_output"`
	PriceCacheRead  float64   `gorm:"column:price_cache_read"`
	PriceCacheWrite float64   `gorm:"column:price_cache_write"`
	CreatedAt       time.Time `gorm:"column:created_at;autoCreateTime:false"`
	UpdatedAt       time.Time `gorm:"column:updated_at;autoUpdateTime:false"`
}

func (modelRow) TableName() string { return "tenant_models" }

// OrgProviders lists orgID's providers by name.
func (s *Store) OrgProviders(ctx context.Context, orgID string) ([]tenantmodel.Provider, error) {
	var rows []providerRow
	if err := s.db.WithContext(ctx).Where("org_id = ?", orgID).Order("name").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("tenantmodel/sqlstore: list providers: %w", err)
	}
	out := make([]tenantmodel.Provider, len(rows))
	for i, r := range rows {
		out[i] = tenantmodel.Provider{OrgID: r.OrgID, Name: r.Name, BaseURL: r.BaseURL, Format: llm.Format(r.Format),
			CredentialID: r.CredentialID, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt.UTC()}
	}
	return out, nil
}

// CreateProvider inserts p (tenancy.ErrConflict when its name is taken).
func (s *Store) CreateProvider(ctx context.Context, p *tenantmodel.Provider) error {
	r := providerRow{OrgID: p.OrgID, Name: p.Name, BaseURL: p.BaseURL, Format: string(p.Format),
		CredentialID: p.CredentialID, CreatedBy: p.CreatedBy, CreatedAt: p.CreatedAt.UTC()}
	return mapErr("create provider", s.db.WithContext(ctx).Create(&r).Error)
}

// DeleteProvider removes a provider without models.
func (s *Store) DeleteProvider(ctx context.Context, orgID, name string) error {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&modelRow{}).Where("org_id = ? AND provider = ?", orgID, name).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("%w (%d)", tenantmodel.ErrProviderInUse, n)
		}
		res := tx.Where("org_id = ? AND name = ?", orgID, name).Delete(&providerRow{})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("%w: provider %q", tenancy.ErrNotFound, name)
		}
		return nil
	})
	if isForeignKey(err) {
		// A model was added between the count and the delete.
		return fmt.Errorf("tenantmodel/sqlstore: delete provider: %w", tenantmodel.ErrProviderInUse)
	}
	return mapErr("delete provider", err)
}

// OrgModels lists orgID's models by id.
func (s *Store) OrgModels(ctx context.Context, orgID string) ([]tenantmodel.Model, error) {
	var rows []modelRow
	if err := s.db.WithContext(ctx).Where("org_id = ?", orgID).Order("id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("tenantmodel/sqlstore: list models: %w", err)
	}
	out := make([]tenantmodel.Model, len(rows))
	for i, r := range rows {
		out[i] = tenantmodel.Model{OrgID: r.OrgID, ID: r.ID, Provider: r.Provider, Upstream: r.Upstream,
			Format: llm.Format(r.Format), ContextWindow: r.ContextWindow, MaxOutput: r.MaxOutput, Tools: r.Tools,
			Vision: r.Vision, Price: catalog.Price{Input: r.PriceInput, Output: r.PriceOutput,
				CacheRead: r.PriceCacheRead, CacheWrite: r.PriceCacheWrite},
			CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
	}
	return out, nil
}

func toRow(m *tenantmodel.Model) modelRow {
	return modelRow{OrgID: m.OrgID, ID: m.ID, Provider: m.Provider, Upstream: m.Upstream, Format: string(m.Format),
		ContextWindow: m.ContextWindow, MaxOutput: m.MaxOutput, Tools: m.Tools, Vision: m.Vision,
		PriceInput: m.Price.Input, PriceOutput: m.Price.Output, PriceCacheRead: m.Price.CacheRead,
		PriceCacheWrite: m.Price.CacheWrite, CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC()}
}

// CreateModel inserts m: tenancy.ErrConflict for a taken id,
// tenancy.ErrNotFound when its provider is not one of m.OrgID's.
func (s *Store) CreateModel(ctx context.Context, m *tenantmodel.Model) error {
	r := toRow(m)
	return mapErr("create model", s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&providerRow{}).Where("org_id = ? AND name = ?", m.OrgID, m.Provider).Count(&n).Error; err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("%w: provider %q", tenancy.ErrNotFound, m.Provider)
		}
		return tx.Create(&r).Error
	}))
}

// UpdateModel replaces an existing model's mutable fields.
func (s *Store) UpdateModel(ctx context.Context, m *tenantmodel.Model) error {
	r := toRow(m)
	res := s.db.WithContext(ctx).Model(&modelRow{}).Where("org_id = ? AND id = ?", m.OrgID, m.ID).Updates(map[string]any{
		"upstream": r.Upstream, "context_window": r.ContextWindow, "max_output": r.MaxOutput,
		"tools": r.Tools, "vision": r.Vision, "price_input": r.PriceInput, "price_output": r.PriceOutput,
		"price_cache_read": r.PriceCacheRead, "price_cache_write": r.PriceCacheWrite, "updated_at": r.UpdatedAt,
	})
	if res.Error == nil && res.RowsAffected == 0 {
		return fmt.Errorf("tenantmodel/sqlstore: update model %q: %w", m.ID, tenancy.ErrNotFound)
	}
	return mapErr("update model", res.Error)
}

// DeleteModel removes one model.
func (s *Store) DeleteModel(ctx context.Context, orgID, id string) error {
	res := s.db.WithContext(ctx).Where("org_id = ? AND id = ?", orgID, id).Delete(&modelRow{})
	if res.Error == nil && res.RowsAffected == 0 {
		return fmt.Errorf("tenantmodel/sqlstore: delete model %q: %w", id, tenancy.ErrNotFound)
	}
	return mapErr("delete model", res.Error)
}

func isForeignKey(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "23503"
	}
	return err != nil && strings.Contains(err.Error(), "FOREIGN KEY constraint failed")
}

// mapErr keeps domain sentinels and turns uniqueness violations into
// tenancy.ErrConflict.
func mapErr(op string, err error) error {
	if err == nil {
		return nil
	}
	for _, sentinel := range []error{tenancy.ErrNotFound, tenancy.ErrConflict, tenantmodel.ErrProviderInUse} {
		if errors.Is(err, sentinel) {
			return fmt.Errorf("tenantmodel/sqlstore: %s: %w", op, err)
		}
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == "23505" {
		return fmt.Errorf("tenantmodel/sqlstore: %s: %w", op, tenancy.ErrConflict)
	}
	msg := err.Error()
	if strings.Contains(msg, "UNIQUE constraint failed") || strings.Contains(msg, "PRIMARY KEY constraint failed") {
		return fmt.Errorf("tenantmodel/sqlstore: %s: %w", op, tenancy.ErrConflict)
	}
	return fmt.Errorf("tenantmodel/sqlstore: %s: %w", op, err)
}
