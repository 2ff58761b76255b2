package pinsql

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/heddle-gw/heddle/routing"
)

// PurgeEvery is how many Puts pass between two sweeps of expired rows.
const PurgeEvery = 256

// Store is a routing.PinStore over the routing_pins table. Safe for
// concurrent use.
type Store struct {
	db   *gorm.DB
	now  func() time.Time
	puts atomic.Uint64
}

var _ routing.PinStore = (*Store)(nil)

// New returns a store over db, which must be migrated. now is the clock
// (time.Now when nil).
func New(db *gorm.DB, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, now: now}
}

// row is one routing_pins row.
type row struct {
	KeyHash     string `gorm:"column:key_hash;primaryKey"`
	OrgID       string `gorm:"column:org_id"`
	Model       string `gorm:"column:model"`
	Turns       int    `gorm:"column:turns"`
	Tokens      int64  `gorm:"column:tokens"`
	CreatedAtMs int64  `gorm:"column:created_at_ms"`
	UpdatedAtMs int64  `gorm:"column:updated_at_ms"`
	ExpiresAtMs int64  `gorm:"column:expires_at_ms"`
}

func (row) TableName() string { return "routing_pins" }

// Get returns the unexpired pin under key. An expired row found on the way
// is deleted.
func (s *Store) Get(ctx context.Context, key routing.PinKey) (routing.Pin, bool, error) {
	if err := key.Validate(); err != nil {
		return routing.Pin{}, false, err
	}
	var r row
	err := s.db.WithContext(ctx).Where("key_hash = ? AND org_id = ?", key.Hash(), key.OrgID).Take(&r).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return routing.Pin{}, false, nil
	}
	if err != nil {
		return routing.Pin{}, false, fmt.Errorf("pinsql: get: %w", err)
	}
	now := s.now().UnixMilli()
	if r.ExpiresAtMs <= now {
		err := s.db.WithContext(ctx).Where("key_hash = ? AND expires_at_ms <= ?", r.KeyHash, now).Delete(&row{}).Error
		if err != nil {
			return routing.Pin{}, false, fmt.Errorf("pinsql: delete expired: %w", err)
		}
		return routing.Pin{}, false, nil
	}
	return routing.Pin{
		Model: r.Model, Turns: r.Turns, LastInputTokens: int(r.Tokens),
		Created: time.UnixMilli(r.CreatedAtMs).UTC(), Updated: time.UnixMilli(r.UpdatedAtMs).UTC(),
	}, true, nil
}

// Put writes p under key (insert or replace), expiring ttl from now
// (routing.DefaultPinTTL when ttl <= 0). Every PurgeEvery-th Put also
// deletes all expired rows.
func (s *Store) Put(ctx context.Context, key routing.PinKey, p routing.Pin, ttl time.Duration) error {
	if err := key.Validate(); err != nil {
		return err
	}
	if ttl <= 0 {
		ttl = routing.DefaultPinTTL
	}
	now := s.now()
	r := row{
		KeyHash: key.Hash(), OrgID: key.OrgID, Model: p.Model, Turns: p.Turns, Tokens: int64(p.LastInputTokens),
		CreatedAtMs: p.Created.UnixMilli(), UpdatedAtMs: p.Updated.UnixMilli(), ExpiresAtMs: now.Add(ttl).UnixMilli(),
	}
	err := s.db.WithContext(ctx).Clauses(clause.OnConflict{
		Columns: []clause.Column{{Name: "key_hash"}},
		DoUpdates: clause.AssignmentColumns([]string{"org_id", "model", "turns", "tokens",
			"created_at_ms", "updated_at_ms", "expires_at_ms"}),
	}).Create(&r).Error
	if err != nil {
		return fmt.Errorf("pinsql: put: %w", err)
	}
	if s.puts.Add(1)%PurgeEvery == 0 {
		if _, err := s.Purge(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Purge deletes every expired pin and returns how many it deleted.
func (s *Store) Purge(ctx context.Context) (int64, error) {
	res := s.db.WithContext(ctx).Where("expires_at_ms <= ?", s.now().UnixMilli()).Delete(&row{})
	if res.Error != nil {
		return 0, fmt.Errorf("pinsql: purge: %w", res.Error)
	}
	return res.RowsAffected, nil
}

// DeleteOrg deletes every pin of an organisation (when it is deleted).
func (s *Store) DeleteOrg(ctx context.Context, orgID string) (int64, error) {
	res := s.db.WithContext(ctx).Where("org_id = ?", orgID).Delete(&row{})
	if res.Error != nil {
		return 0, fmt.Errorf("pinsql: delete org: %w", res.Error)
	}
	return res.RowsAffected, nil
}
