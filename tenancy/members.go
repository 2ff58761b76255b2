package tenancy

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DefaultInvitationTTL is how long an invitation stays valid.
const DefaultInvitationTTL = 7 * 24 * time.Hour

// MembersConfig configures Members.
type MembersConfig struct {
	Hasher        *Hasher          // nil means NewHasher(DefaultPasswordParams)
	InvitationTTL time.Duration    // 0 means DefaultInvitationTTL
	Now           func() time.Time // nil means time.Now
	// Auth, when set, forgets a removed member's keys at once on this
	// replica (others refuse them within its cache TTL).
	Auth *Authenticator
}

type membersStore interface {
	AccountStore
	MembershipStore
	InvitationStore
	KeyStore
}

// Members manages an organisation's members and invitations.
type Members struct {
	store  membersStore
	hasher *Hasher
	ttl    time.Duration
	now    func() time.Time
	auth   *Authenticator // nil: no cache to forget keys in
}

// NewMembers returns a Members service over store.
func NewMembers(store membersStore, cfg MembersConfig) *Members {
	if cfg.Hasher == nil {
		cfg.Hasher = NewHasher(DefaultPasswordParams)
	}
	if cfg.InvitationTTL <= 0 {
		cfg.InvitationTTL = DefaultInvitationTTL
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Members{store: store, hasher: cfg.Hasher, ttl: cfg.InvitationTTL, now: cfg.Now, auth: cfg.Auth}
}

// List lists the actor's organisation's members.
func (s *Members) List(ctx context.Context, actor Actor) ([]Member, error) {
	if err := actor.require(PermRead); err != nil {
		return nil, err
	}
	return s.store.OrgMembers(ctx, actor.OrgID)
}

// Invitations lists the actor's organisation's pending invitations.
func (s *Members) Invitations(ctx context.Context, actor Actor) ([]Invitation, error) {
	if err := actor.require(PermManageMembers); err != nil {
		return nil, err
	}
	return s.store.OrgInvitations(ctx, actor.OrgID)
}

// Invite invites email into the actor's organisation with role and returns
// the invitation and its token (shown once; only its hash is stored). Only
// owners may invite owners. ErrConflict means the person is already a member.
func (s *Members) Invite(ctx context.Context, actor Actor, email string, role Role) (*Invitation, string, error) {
	if err := actor.require(PermManageMembers); err != nil {
		return nil, "", err
	}
	email, err := NormalizeEmail("email", email)
	if err != nil {
		return nil, "", err
	}
	if !role.Valid() {
		return nil, "", invalid("role", "must be owner, admin, member or viewer")
	}
	if role == RoleOwner && actor.Role != RoleOwner {
		return nil, "", ErrForbidden
	}
	if u, err := s.store.UserByEmail(ctx, email); err == nil {
		if _, err := s.store.Membership(ctx, actor.OrgID, u.ID); err == nil {
			return nil, "", fmt.Errorf("tenancy: invite: already a member: %w", ErrConflict)
		} else if !errors.Is(err, ErrNotFound) {
			return nil, "", err
		}
	} else if !errors.Is(err, ErrNotFound) {
		return nil, "", err
	}
	token := "inv_" + randomToken(32)
	now := s.now().UTC()
	inv := &Invitation{
		ID: newID(), OrgID: actor.OrgID, Email: email, Role: role, TokenHash: sha256Hex(token),
		InvitedBy: actor.UserID, CreatedAt: now, ExpiresAt: now.Add(s.ttl),
	}
	if err := s.store.CreateInvitation(ctx, inv); err != nil {
		return nil, "", fmt.Errorf("tenancy: invite: %w", err)
	}
	return inv, token, nil
}

// AcceptInput says who accepts an invitation: a logged-in user (UserID set,
// whose email must be the invited one), or the invited email's owner with a
// password (an existing account's password, or a new account's).
type AcceptInput struct {
	UserID   string
	Password string
}

// Accept accepts an invitation and returns the member's user and membership.
// An unknown, expired or used token is ErrInvitationInvalid; a logged-in
// user with another email is ErrForbidden; a wrong password for an existing
// account is ErrInvalidLogin.
func (s *Members) Accept(ctx context.Context, token string, in AcceptInput) (*User, *Membership, error) {
	inv, err := s.store.InvitationByTokenHash(ctx, sha256Hex(token))
	if errors.Is(err, ErrNotFound) {
		return nil, nil, ErrInvitationInvalid
	}
	if err != nil {
		return nil, nil, err
	}
	now := s.now().UTC()
	if inv.AcceptedAt != nil || !now.Before(inv.ExpiresAt) {
		return nil, nil, ErrInvitationInvalid
	}
	u, newUser, err := s.acceptor(ctx, inv.Email, in, now)
	if err != nil {
		return nil, nil, err
	}
	m := &Membership{OrgID: inv.OrgID, UserID: u.ID, Role: inv.Role, CreatedAt: now}
	if err := s.store.AcceptInvitation(ctx, inv.ID, newUser, m, now); err != nil {
		return nil, nil, fmt.Errorf("tenancy: accept invitation: %w", err)
	}
	return u, m, nil
}

// acceptor finds or prepares the user accepting an invitation for email.
// newUser is non-nil when the account must be created.
func (s *Members) acceptor(ctx context.Context, email string, in AcceptInput, now time.Time) (u, newUser *User, err error) {
	if in.UserID != "" {
		u, err := s.store.UserByID(ctx, in.UserID)
		if err != nil {
			return nil, nil, err
		}
		if u.Email != email {
			return nil, nil, ErrForbidden
		}
		return u, nil, nil
	}
	existing, err := s.store.UserByEmail(ctx, email)
	switch {
	case err == nil:
		ok, err := s.hasher.Verify(ctx, existing.PasswordHash, in.Password)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			return nil, nil, ErrInvalidLogin
		}
		return existing, nil, nil
	case errors.Is(err, ErrNotFound):
		if err := validatePassword("password", in.Password); err != nil {
			return nil, nil, err
		}
		hash, err := s.hasher.Hash(ctx, in.Password)
		if err != nil {
			return nil, nil, err
		}
		nu := &User{ID: newID(), Email: email, PasswordHash: hash, CreatedAt: now}
		return nu, nu, nil
	default:
		return nil, nil, err
	}
}

// ChangeRole sets a member's role. Admins manage admins, members and viewers;
// only owners grant or take away the owner role. The last owner stays.
func (s *Members) ChangeRole(ctx context.Context, actor Actor, userID string, role Role) error {
	if err := actor.require(PermManageMembers); err != nil {
		return err
	}
	if !role.Valid() {
		return invalid("role", "must be owner, admin, member or viewer")
	}
	target, err := s.store.Membership(ctx, actor.OrgID, userID)
	if err != nil {
		return err
	}
	if (role == RoleOwner || target.Role == RoleOwner) && actor.Role != RoleOwner {
		return ErrForbidden
	}
	return s.store.SetRole(ctx, actor.OrgID, userID, role)
}

// Cancel withdraws a pending invitation of the actor's organisation (its
// token stops working); ErrNotFound for an unknown, accepted or another
// organisation's invitation.
func (s *Members) Cancel(ctx context.Context, actor Actor, invitationID string) error {
	if err := actor.require(PermManageMembers); err != nil {
		return err
	}
	return s.store.DeleteInvitation(ctx, actor.OrgID, invitationID)
}

// SetRemovedMemberKeys chooses (admins and owners) what removing a member of
// the actor's organisation does to the keys they created: KeysRevoke or
// KeysSuspend; anything else is a *ValidationError.
func (s *Members) SetRemovedMemberKeys(ctx context.Context, actor Actor, d KeyDisposal) error {
	if err := actor.require(PermManageMembers); err != nil {
		return err
	}
	if !d.Valid() {
		return invalid("removed_member_keys", "must be revoke or suspend")
	}
	return s.store.SetRemovedMemberKeys(ctx, actor.OrgID, d)
}

// Remove removes a member and revokes or suspends, as the organisation
// chose (Org.RemovedMemberKeys), the keys they created in it (other replicas
// refuse them within the Authenticator's cache TTL). Anyone may leave; admins remove non-owners; owners remove anyone but
// the last owner.
func (s *Members) Remove(ctx context.Context, actor Actor, userID string) error {
	if actor.OrgID == "" {
		return ErrForbidden
	}
	target, err := s.store.Membership(ctx, actor.OrgID, userID)
	if err != nil {
		return err
	}
	if userID != actor.UserID {
		if err := actor.require(PermManageMembers); err != nil {
			return err
		}
		if target.Role == RoleOwner && actor.Role != RoleOwner {
			return ErrForbidden
		}
	}
	org, err := s.store.OrgByID(ctx, actor.OrgID)
	if err != nil {
		return err
	}
	keys := org.RemovedMemberKeys
	if !keys.Valid() {
		keys = KeysRevoke // fail closed: an unknown setting revokes
	}
	var theirs []string // hashes of the keys the member created here
	if s.auth != nil {
		all, err := s.store.OrgKeys(ctx, actor.OrgID)
		if err != nil {
			return err
		}
		for _, k := range all {
			if k.CreatedBy == userID {
				theirs = append(theirs, k.Hash)
			}
		}
	}
	if err := s.store.DeleteMembership(ctx, actor.OrgID, userID, s.now().UTC(), keys); err != nil {
		return err
	}
	for _, h := range theirs {
		s.auth.Invalidate(h)
	}
	return nil
}
