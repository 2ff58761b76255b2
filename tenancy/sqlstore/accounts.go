package sqlstore

import (
	"context"
	"time"

	"gorm.io/gorm"

	"github.com/heddle-gw/heddle/tenancy"
)

// CreateAccount implements tenancy.AccountStore.
func (s *Store) CreateAccount(ctx context.Context, u *tenancy.User, o *tenancy.Org, m *tenancy.Membership) error {
	return mapErr("create account", s.tx(ctx, func(tx *gorm.DB) error {
		if err := tx.Create(userToRow(u)).Error; err != nil {
			return mapErr("insert user", err)
		}
		if err := tx.Create(orgToRow(o)).Error; err != nil {
			return mapErr("insert org", err)
		}
		return tx.Create(membershipToRow(m)).Error
	}))
}

// CreateOrg implements tenancy.AccountStore.
func (s *Store) CreateOrg(ctx context.Context, o *tenancy.Org, owner *tenancy.Membership) error {
	return mapErr("create org", s.tx(ctx, func(tx *gorm.DB) error {
		if err := tx.Create(orgToRow(o)).Error; err != nil {
			return mapErr("insert org", err)
		}
		m := *owner
		m.OrgID = o.ID
		return tx.Create(membershipToRow(&m)).Error
	}))
}

// UserByID implements tenancy.AccountStore.
func (s *Store) UserByID(ctx context.Context, id string) (*tenancy.User, error) {
	var r userRow
	if err := s.conn(ctx).Where("id = ?", id).Take(&r).Error; err != nil {
		return nil, mapErr("user by id", err)
	}
	return r.domain(), nil
}

// UserByEmail implements tenancy.AccountStore.
func (s *Store) UserByEmail(ctx context.Context, email string) (*tenancy.User, error) {
	var r userRow
	if err := s.conn(ctx).Where("email = ?", email).Take(&r).Error; err != nil {
		return nil, mapErr("user by email", err)
	}
	return r.domain(), nil
}

// OrgByID implements tenancy.AccountStore.
func (s *Store) OrgByID(ctx context.Context, id string) (*tenancy.Org, error) {
	var r orgRow
	if err := s.conn(ctx).Where("id = ?", id).Take(&r).Error; err != nil {
		return nil, mapErr("org by id", err)
	}
	return r.domain(), nil
}

// SetRemovedMemberKeys implements tenancy.AccountStore.
func (s *Store) SetRemovedMemberKeys(ctx context.Context, orgID string, d tenancy.KeyDisposal) error {
	res := s.conn(ctx).Exec("UPDATE orgs SET removed_member_keys = ? WHERE id = ?", string(d), orgID)
	return mapErr("set removed member keys", affected1(res, tenancy.ErrNotFound))
}

// OrgBySlug implements tenancy.AccountStore.
func (s *Store) OrgBySlug(ctx context.Context, slug string) (*tenancy.Org, error) {
	var r orgRow
	if err := s.conn(ctx).Where("slug = ?", slug).Take(&r).Error; err != nil {
		return nil, mapErr("org by slug", err)
	}
	return r.domain(), nil
}

// Membership implements tenancy.MembershipStore.
func (s *Store) Membership(ctx context.Context, orgID, userID string) (*tenancy.Membership, error) {
	var r membershipRow
	if err := s.conn(ctx).Where("org_id = ? AND user_id = ?", orgID, userID).Take(&r).Error; err != nil {
		return nil, mapErr("membership", err)
	}
	return r.domain(), nil
}

// UserOrgs implements tenancy.MembershipStore.
func (s *Store) UserOrgs(ctx context.Context, userID string) ([]tenancy.OrgMembership, error) {
	var rows []struct {
		ID        string    `gorm:"column:id"`
		Name      string    `gorm:"column:name"`
		Slug      string    `gorm:"column:slug"`
		CreatedAt time.Time `gorm:"column:created_at"`
		Role      string    `gorm:"column:role"`
	}
	err := s.conn(ctx).Raw(`SELECT o.id, o.name, o.slug, o.created_at, m.role
		FROM memberships m JOIN orgs o ON o.id = m.org_id
		WHERE m.user_id = ? ORDER BY m.created_at, m.org_id`, userID).Scan(&rows).Error
	if err != nil {
		return nil, mapErr("user orgs", err)
	}
	out := make([]tenancy.OrgMembership, len(rows))
	for i := range rows {
		r := rows[i]
		out[i] = tenancy.OrgMembership{
			Org:  tenancy.Org{ID: r.ID, Name: r.Name, Slug: r.Slug, CreatedAt: utc(r.CreatedAt)},
			Role: tenancy.Role(r.Role),
		}
	}
	return out, nil
}

// OrgMembers implements tenancy.MembershipStore.
func (s *Store) OrgMembers(ctx context.Context, orgID string) ([]tenancy.Member, error) {
	var rows []struct {
		OrgID     string    `gorm:"column:org_id"`
		UserID    string    `gorm:"column:user_id"`
		Role      string    `gorm:"column:role"`
		CreatedAt time.Time `gorm:"column:created_at"`
		Email     string    `gorm:"column:email"`
	}
	err := s.conn(ctx).Raw(`SELECT m.org_id, m.user_id, m.role, m.created_at, u.email
		FROM memberships m JOIN users u ON u.id = m.user_id
		WHERE m.org_id = ? ORDER BY m.created_at, m.user_id`, orgID).Scan(&rows).Error
	if err != nil {
		return nil, mapErr("org members", err)
	}
	out := make([]tenancy.Member, len(rows))
	for i := range rows {
		r := rows[i]
		m := tenancy.Membership{OrgID: r.OrgID, UserID: r.UserID, Role: tenancy.Role(r.Role), CreatedAt: utc(r.CreatedAt)}
		out[i] = tenancy.Member{Membership: m, Email: r.Email}
	}
	return out, nil
}

// lockOrg takes the org row's write lock so owner counts cannot race.
func lockOrg(tx *gorm.DB, orgID string) error {
	return tx.Exec("UPDATE orgs SET updated_at = ? WHERE id = ?", time.Now().UTC(), orgID).Error
}

// keepsOwner returns ErrLastOwner when changing userID's membership away
// from owner would leave the org without one.
func keepsOwner(tx *gorm.DB, orgID, userID string) error {
	var owners []string
	if err := tx.Raw("SELECT user_id FROM memberships WHERE org_id = ? AND role = ?", orgID, string(tenancy.RoleOwner)).
		Scan(&owners).Error; err != nil {
		return err
	}
	if len(owners) == 1 && owners[0] == userID {
		return tenancy.ErrLastOwner
	}
	return nil
}

// SetRole implements tenancy.MembershipStore.
func (s *Store) SetRole(ctx context.Context, orgID, userID string, role tenancy.Role) error {
	return mapErr("set role", s.tx(ctx, func(tx *gorm.DB) error {
		if err := lockOrg(tx, orgID); err != nil {
			return err
		}
		if role != tenancy.RoleOwner {
			if err := keepsOwner(tx, orgID, userID); err != nil {
				return err
			}
		}
		res := tx.Exec("UPDATE memberships SET role = ? WHERE org_id = ? AND user_id = ?", string(role), orgID, userID)
		return affected1(res, tenancy.ErrNotFound)
	}))
}

// DeleteMembership implements tenancy.MembershipStore.
func (s *Store) DeleteMembership(ctx context.Context, orgID, userID string, at time.Time, keys tenancy.KeyDisposal) error {
	column := "revoked_at"
	if keys == tenancy.KeysSuspend {
		column = "suspended_at"
	}
	return mapErr("delete membership", s.tx(ctx, func(tx *gorm.DB) error {
		if err := lockOrg(tx, orgID); err != nil {
			return err
		}
		if err := keepsOwner(tx, orgID, userID); err != nil {
			return err
		}
		res := tx.Exec("DELETE FROM memberships WHERE org_id = ? AND user_id = ?", orgID, userID)
		if err := affected1(res, tenancy.ErrNotFound); err != nil {
			return err
		}
		return tx.Exec("UPDATE api_keys SET "+column+" = ? WHERE org_id = ? AND created_by = ? AND revoked_at IS NULL AND suspended_at IS NULL",
			utc(at), orgID, userID).Error
	}))
}
