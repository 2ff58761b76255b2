package sqlstore

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"

	"github.com/heddle-gw/heddle/tenancy"
)

// CreateInvitation implements tenancy.InvitationStore.
func (s *Store) CreateInvitation(ctx context.Context, inv *tenancy.Invitation) error {
	r := &invitationRow{
		ID: inv.ID, OrgID: inv.OrgID, Email: inv.Email, Role: string(inv.Role), TokenHash: inv.TokenHash,
		InvitedBy: inv.InvitedBy, CreatedAt: utc(inv.CreatedAt), ExpiresAt: utc(inv.ExpiresAt), AcceptedAt: utcPtr(inv.AcceptedAt),
	}
	return mapErr("create invitation", s.conn(ctx).Create(r).Error)
}

// InvitationByTokenHash implements tenancy.InvitationStore.
func (s *Store) InvitationByTokenHash(ctx context.Context, hash string) (*tenancy.Invitation, error) {
	var r invitationRow
	if err := s.conn(ctx).Where("token_hash = ?", hash).Take(&r).Error; err != nil {
		return nil, mapErr("invitation by token", err)
	}
	return r.domain(), nil
}

// OrgInvitations implements tenancy.InvitationStore.
func (s *Store) OrgInvitations(ctx context.Context, orgID string) ([]tenancy.Invitation, error) {
	var rows []invitationRow
	err := s.conn(ctx).Where("org_id = ? AND accepted_at IS NULL", orgID).Order("created_at, id").Find(&rows).Error
	if err != nil {
		return nil, mapErr("org invitations", err)
	}
	out := make([]tenancy.Invitation, len(rows))
	for i := range rows {
		out[i] = *rows[i].domain()
	}
	return out, nil
}

// AcceptInvitation implements tenancy.InvitationStore.
func (s *Store) AcceptInvitation(ctx context.Context, invID string, newUser *tenancy.User, m *tenancy.Membership, at time.Time) error {
	return mapErr("accept invitation", s.tx(ctx, func(tx *gorm.DB) error {
		res := tx.Exec("UPDATE invitations SET accepted_at = ? WHERE id = ? AND accepted_at IS NULL", utc(at), invID)
		if err := affected1(res, tenancy.ErrInvitationInvalid); err != nil {
			return err
		}
		if newUser != nil {
			if err := tx.Create(userToRow(newUser)).Error; err != nil {
				return mapErr("insert user", err)
			}
		}
		var cur membershipRow
		err := tx.Where("org_id = ? AND user_id = ?", m.OrgID, m.UserID).Take(&cur).Error
		switch {
		case errors.Is(err, gorm.ErrRecordNotFound):
			return tx.Create(membershipToRow(m)).Error
		case err != nil:
			return err
		}
		if cur.Role == string(tenancy.RoleOwner) && m.Role != tenancy.RoleOwner {
			if err := lockOrg(tx, m.OrgID); err != nil {
				return err
			}
			if err := keepsOwner(tx, m.OrgID, m.UserID); err != nil {
				return err
			}
		}
		return tx.Exec("UPDATE memberships SET role = ? WHERE org_id = ? AND user_id = ?", string(m.Role), m.OrgID, m.UserID).Error
	}))
}

// DeleteInvitation implements tenancy.InvitationStore.
func (s *Store) DeleteInvitation(ctx context.Context, orgID, invitationID string) error {
	res := s.conn(ctx).Exec("DELETE FROM invitations WHERE org_id = ? AND id = ? AND accepted_at IS NULL", orgID, invitationID)
	return mapErr("delete invitation", affected1(res, tenancy.ErrNotFound))
}
