package sqlstore

import (
	"context"
	"maps"
	"slices"
	"time"

	"gorm.io/gorm"

	"github.com/heddle-gw/heddle/tenancy"
)

// CreateKey implements tenancy.KeyStore.
func (s *Store) CreateKey(ctx context.Context, k *tenancy.Key) error {
	return mapErr("create key", s.conn(ctx).Create(keyToRow(k)).Error)
}

// KeyByHash implements tenancy.KeyLookup.
func (s *Store) KeyByHash(ctx context.Context, hash string) (*tenancy.Key, error) {
	var r keyRow
	if err := s.conn(ctx).Where("key_hash = ?", hash).Take(&r).Error; err != nil {
		return nil, mapErr("key by hash", err)
	}
	return r.domain(), nil
}

// TouchKeys implements tenancy.KeyLookup: one transaction, and a last-used
// time never moves backwards.
func (s *Store) TouchKeys(ctx context.Context, used map[string]time.Time) error {
	if len(used) == 0 {
		return nil
	}
	ids := slices.Sorted(maps.Keys(used)) // a stable order avoids lock-order deadlocks between replicas
	return mapErr("touch keys", s.tx(ctx, func(tx *gorm.DB) error {
		for _, id := range ids {
			at := utc(used[id])
			err := tx.Exec("UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)",
				at, id, at).Error
			if err != nil {
				return err
			}
		}
		return nil
	}))
}

// OrgKeys implements tenancy.KeyStore.
func (s *Store) OrgKeys(ctx context.Context, orgID string) ([]tenancy.Key, error) {
	var rows []keyRow
	if err := s.conn(ctx).Where("org_id = ?", orgID).Order("created_at DESC, id DESC").Find(&rows).Error; err != nil {
		return nil, mapErr("org keys", err)
	}
	out := make([]tenancy.Key, len(rows))
	for i := range rows {
		out[i] = *rows[i].domain()
	}
	return out, nil
}

// OrgKey implements tenancy.KeyStore.
func (s *Store) OrgKey(ctx context.Context, orgID, id string) (*tenancy.Key, error) {
	var r keyRow
	if err := s.conn(ctx).Where("org_id = ? AND id = ?", orgID, id).Take(&r).Error; err != nil {
		return nil, mapErr("org key", err)
	}
	return r.domain(), nil
}

// UpdateKey implements tenancy.KeyStore.
func (s *Store) UpdateKey(ctx context.Context, k *tenancy.Key) error {
	r := keyToRow(k)
	res := s.conn(ctx).Exec(`UPDATE api_keys SET name = ?, scopes = ?, policy = ?, alpha = ?, rpm = ?, tpm = ?,
		daily_budget_micros = ?, monthly_budget_micros = ?, budget_soft = ?, expires_at = ?, tags = ? WHERE org_id = ? AND id = ?`,
		r.Name, r.Scopes, r.Policy, r.Alpha, r.RPM, r.TPM, r.DailyBudgetMicros, r.MonthlyBudgetMicros, r.BudgetSoft, r.ExpiresAt, r.Tags,
		r.OrgID, r.ID)
	return mapErr("update key", affected1(res, tenancy.ErrNotFound))
}

// RevokeKey implements tenancy.KeyStore.
func (s *Store) RevokeKey(ctx context.Context, orgID, id string, at time.Time) error {
	res := s.conn(ctx).Exec("UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE org_id = ? AND id = ?", utc(at), orgID, id)
	return mapErr("revoke key", affected1(res, tenancy.ErrNotFound))
}

// ReinstateKey implements tenancy.KeyStore.
func (s *Store) ReinstateKey(ctx context.Context, orgID, id string) error {
	res := s.conn(ctx).Exec("UPDATE api_keys SET suspended_at = NULL WHERE org_id = ? AND id = ?", orgID, id)
	return mapErr("reinstate key", affected1(res, tenancy.ErrNotFound))
}
