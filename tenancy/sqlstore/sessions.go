package sqlstore

import (
	"context"
	"time"

	"github.com/heddle-gw/heddle/tenancy"
)

// CreateSession implements tenancy.SessionStore.
func (s *Store) CreateSession(ctx context.Context, sess *tenancy.Session) error {
	r := &sessionRow{
		ID: sess.ID, UserID: sess.UserID, OrgID: sess.OrgID, RefreshHash: sess.RefreshHash, CreatedAt: utc(sess.CreatedAt),
		RefreshedAt: utc(sess.RefreshedAt), ExpiresAt: utc(sess.ExpiresAt), RevokedAt: utcPtr(sess.RevokedAt),
	}
	return mapErr("create session", s.conn(ctx).Create(r).Error)
}

// SessionByID implements tenancy.SessionStore.
func (s *Store) SessionByID(ctx context.Context, id string) (*tenancy.Session, error) {
	var r sessionRow
	if err := s.conn(ctx).Where("id = ?", id).Take(&r).Error; err != nil {
		return nil, mapErr("session by id", err)
	}
	return r.domain(), nil
}

// RotateRefresh implements tenancy.SessionStore.
func (s *Store) RotateRefresh(ctx context.Context, id, oldHash, newHash string, at time.Time) error {
	res := s.conn(ctx).Exec("UPDATE console_sessions SET refresh_hash = ?, refreshed_at = ? WHERE id = ? AND refresh_hash = ?",
		newHash, utc(at), id, oldHash)
	if res.Error != nil {
		return mapErr("rotate refresh", res.Error)
	}
	if res.RowsAffected == 1 {
		return nil
	}
	if _, err := s.SessionByID(ctx, id); err != nil {
		return err
	}
	return mapErr("rotate refresh", tenancy.ErrConflict)
}

// SetSessionOrg implements tenancy.SessionStore.
func (s *Store) SetSessionOrg(ctx context.Context, id, orgID string) error {
	res := s.conn(ctx).Exec("UPDATE console_sessions SET org_id = ? WHERE id = ?", orgID, id)
	return mapErr("set session org", affected1(res, tenancy.ErrNotFound))
}

// RevokeSession implements tenancy.SessionStore.
func (s *Store) RevokeSession(ctx context.Context, id string, at time.Time) error {
	res := s.conn(ctx).Exec("UPDATE console_sessions SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?", utc(at), id)
	return mapErr("revoke session", affected1(res, tenancy.ErrNotFound))
}
