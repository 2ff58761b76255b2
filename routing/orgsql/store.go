package orgsql

import (
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/heddle-gw/heddle/routing"
)

// ErrConflict means a bundle id is already taken by another organisation.
var ErrConflict = errors.New("orgsql: bundle id belongs to another organisation")

// Store is a routing.OrgSettingsStore and routing.OrgBundleStore over the
// org_routing and org_bundles tables. Safe for concurrent use.
type Store struct {
	db  *gorm.DB
	now func() time.Time
}

var (
	_ routing.OrgSettingsStore = (*Store)(nil)
	_ routing.OrgBundleStore   = (*Store)(nil)
)

// New returns a store over db, which must be migrated. now is the clock
// (time.Now when nil).
func New(db *gorm.DB, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, now: now}
}

// settingsRow is one org_routing row.
type settingsRow struct {
	OrgID       string          `gorm:"column:org_id;primaryKey"`
	Alpha       sql.NullFloat64 `gorm:"column:alpha"`
	AllowModels string          `gorm:"column:allow_models"`
	DenyModels  string          `gorm:"column:deny_models"`
	CacheBypass bool            `gorm:"column:cache_bypass"`
	BundleID    string          `gorm:"column:bundle_id"`
	Aliases     string          `gorm:"column:model_aliases"`
	// PassthroughOff is routing.OrgSettings.PassthroughOff.
	PassthroughOff bool      `gorm:"column:passthrough_off"`
	UpdatedAt      time.Time `gorm:"column:updated_at;autoUpdateTime:false"`
}

func (settingsRow) TableName() string { return "org_routing" }

// GetSettings returns orgID's settings, or the zero value when it has none.
func (s *Store) GetSettings(ctx context.Context, orgID string) (routing.OrgSettings, error) {
	var r settingsRow
	err := s.db.WithContext(ctx).Where("org_id = ?", orgID).Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return routing.OrgSettings{}, nil
	}
	if err != nil {
		return routing.OrgSettings{}, fmt.Errorf("orgsql: get settings: %w", err)
	}
	out := routing.OrgSettings{CacheBypass: r.CacheBypass, BundleID: r.BundleID, PassthroughOff: r.PassthroughOff, UpdatedAt: r.UpdatedAt.UTC()}
	if r.Alpha.Valid {
		a := r.Alpha.Float64
		out.Alpha = &a
	}
	if out.Allow, err = decodeList(r.AllowModels); err != nil {
		return routing.OrgSettings{}, fmt.Errorf("orgsql: allow_models of %s: %w", orgID, err)
	}
	if out.Deny, err = decodeList(r.DenyModels); err != nil {
		return routing.OrgSettings{}, fmt.Errorf("orgsql: deny_models of %s: %w", orgID, err)
	}
	if out.Aliases, err = decodeAliases(r.Aliases); err != nil {
		return routing.OrgSettings{}, fmt.Errorf("orgsql: model_aliases of %s: %w", orgID, err)
	}
	return out, nil
}

// PutSettings replaces orgID's settings; a zero UpdatedAt becomes now.
func (s *Store) PutSettings(ctx context.Context, orgID string, v routing.OrgSettings) error {
	if orgID == "" {
		return fmt.Errorf("orgsql: put settings: empty organisation id")
	}
	r := settingsRow{OrgID: orgID, CacheBypass: v.CacheBypass, BundleID: v.BundleID, PassthroughOff: v.PassthroughOff, UpdatedAt: v.UpdatedAt.UTC()}
	if r.UpdatedAt.IsZero() {
		r.UpdatedAt = s.now().UTC()
	}
	if v.Alpha != nil {
		r.Alpha = sql.NullFloat64{Float64: *v.Alpha, Valid: true}
	}
	var err error
	if r.AllowModels, err = encodeList(v.Allow); err != nil {
		return err
	}
	if r.DenyModels, err = encodeList(v.Deny); err != nil {
		return err
	}
	if r.Aliases, err = encodeAliases(v.Aliases); err != nil {
		return err
	}
	err = s.db.WithContext(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "org_id"}},
		DoUpdates: clause.AssignmentColumns([]string{"alpha", "allow_models", "deny_models", "cache_bypass", "bundle_id", "model_aliases", "passthrough_off", "updated_at"}),
	}).Create(&r).Error
	if err != nil {
		return fmt.Errorf("orgsql: put settings: %w", err)
	}
	return nil
}

func encodeList(ids []string) (string, error) {
	if ids == nil {
		ids = []string{}
	}
	b, err := json.Marshal(ids)
	if err != nil {
		return "", fmt.Errorf("orgsql: encode model list: %w", err)
	}
	return string(b), nil
}

func decodeList(s string) ([]string, error) {
	var ids []string
	if s == "" {
		return nil, nil
	}
	if err := json.Unmarshal([]byte(s), &ids); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	return ids, nil
}

func encodeAliases(m map[string]string) (string, error) {
	if m == nil {
		m = map[string]string{}
	}
	b, err := json.Marshal(m) // keys sorted: the stored text is stable
	if err != nil {
		return "", fmt.Errorf("orgsql: encode model aliases: %w", err)
	}
	return string(b), nil
}

func decodeAliases(s string) (map[string]string, error) {
	var m map[string]string
	if s == "" {
		return nil, nil
	}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}

// gzipBytes compresses an encoded bundle.
func gzipBytes(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
