package orgsql

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/heddle-gw/heddle/routing"
)

// bundleRow is one org_bundles row.
type bundleRow struct {
	ID        string    `gorm:"column:id;primaryKey"`
	OrgID     string    `gorm:"column:org_id"`
	Revision  string    `gorm:"column:revision"`
	Models    string    `gorm:"column:models"`
	K         int       `gorm:"column:k"`
	Samples   int       `gorm:"column:samples"`
	DataHash  string    `gorm:"column:data_hash"`
	CreatedAt time.Time `gorm:"column:created_at;autoCreateTime:false"`
	Bundle    []byte    `gorm:"column:bundle"`
}

func (bundleRow) TableName() string { return "org_bundles" }

// infoColumns are every column but the bundle's bytes.
var infoColumns = []string{"id", "org_id", "revision", "models", "k", "samples", "data_hash", "created_at"}

// PutBundle stores b for orgID, replacing orgID's bundle of the same id. It
// returns an error wrapping ErrConflict when the id belongs to another
// organisation (ids are derived from the organisation, so only a crafted
// bundle can collide).
func (s *Store) PutBundle(ctx context.Context, orgID string, b *routing.Bundle) (routing.BundleInfo, error) {
	if orgID == "" || b == nil || b.ID == "" {
		return routing.BundleInfo{}, fmt.Errorf("orgsql: put bundle: organisation and bundle id are required")
	}
	raw, err := b.Bytes()
	if err != nil {
		return routing.BundleInfo{}, err
	}
	packed, err := gzipBytes(raw)
	if err != nil {
		return routing.BundleInfo{}, fmt.Errorf("orgsql: compress bundle: %w", err)
	}
	info := routing.InfoOf(orgID, b, s.now().UTC().Truncate(time.Millisecond))
	models, err := encodeList(info.Models)
	if err != nil {
		return routing.BundleInfo{}, err
	}
	r := bundleRow{ID: info.ID, OrgID: orgID, Revision: info.Revision, Models: models, K: info.K,
		Samples: info.Samples, DataHash: info.DataHash, CreatedAt: info.CreatedAt, Bundle: packed}
	res := s.db.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "id"}},
		Where:     clause.Where{Exprs: []clause.Expression{clause.Expr{SQL: "org_bundles.org_id = excluded.org_id"}}},
		DoUpdates: clause.AssignmentColumns([]string{"revision", "models", "k", "samples", "data_hash", "created_at", "bundle"}),
	}).Create(&r)
	if res.Error != nil {
		return routing.BundleInfo{}, fmt.Errorf("orgsql: put bundle: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return routing.BundleInfo{}, fmt.Errorf("orgsql: put bundle %s: %w", b.ID, ErrConflict)
	}
	return info, nil
}

// GetBundle loads orgID's bundle id; another organisation's id is
// routing.ErrBundleNotFound.
func (s *Store) GetBundle(ctx context.Context, orgID, id string) (*routing.Bundle, error) {
	var r bundleRow
	err := s.db.WithContext(ctx).Where("id = ? AND org_id = ?", id, orgID).Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, fmt.Errorf("orgsql: bundle %s: %w", id, routing.ErrBundleNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("orgsql: get bundle: %w", err)
	}
	b, err := routing.LoadBundle(bytes.NewReader(r.Bundle))
	if err != nil {
		return nil, fmt.Errorf("orgsql: bundle %s: %w", id, err)
	}
	if b.ID != r.ID {
		return nil, fmt.Errorf("orgsql: bundle %s: %w: stored bytes hold bundle %s", id, routing.ErrBundle, b.ID)
	}
	return b, nil
}

// ListBundles describes orgID's bundles, newest first.
func (s *Store) ListBundles(ctx context.Context, orgID string) ([]routing.BundleInfo, error) {
	var rows []bundleRow
	err := s.db.WithContext(ctx).Select(infoColumns).Where("org_id = ?", orgID).
		Order("created_at DESC, id").Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("orgsql: list bundles: %w", err)
	}
	out := make([]routing.BundleInfo, 0, len(rows))
	for _, r := range rows {
		var models []string
		if err := json.Unmarshal([]byte(r.Models), &models); err != nil {
			return nil, fmt.Errorf("orgsql: models of bundle %s: %w", r.ID, err)
		}
		out = append(out, routing.BundleInfo{ID: r.ID, OrgID: r.OrgID, Revision: r.Revision, Models: models,
			K: r.K, Samples: r.Samples, DataHash: r.DataHash, CreatedAt: r.CreatedAt.UTC()})
	}
	return out, nil
}

// DeleteOrg deletes an organisation's settings and bundles (when it is
// deleted) and returns how many bundles it deleted.
func (s *Store) DeleteOrg(ctx context.Context, orgID string) (int64, error) {
	if err := s.db.WithContext(ctx).Where("org_id = ?", orgID).Delete(&settingsRow{}).Error; err != nil {
		return 0, fmt.Errorf("orgsql: delete settings: %w", err)
	}
	res := s.db.WithContext(ctx).Where("org_id = ?", orgID).Delete(&bundleRow{})
	if res.Error != nil {
		return 0, fmt.Errorf("orgsql: delete bundles: %w", res.Error)
	}
	return res.RowsAffected, nil
}
