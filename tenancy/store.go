package tenancy

import (
	"context"
	"time"
)

// The storage interfaces below are implemented by tenancy/sqlstore and by the
// in-memory fake in tenancy/tenancytest. Every method blocks on storage and
// honours ctx. A missing row is ErrNotFound; a uniqueness or compare-and-swap
// failure is ErrConflict (ErrEmailTaken for a duplicate user email). Lookups
// scoped by an organisation never return another organisation's rows.

// AccountStore holds users and organisations.
type AccountStore interface {
	// CreateAccount inserts a user, an organisation and the user's membership
	// in one transaction.
	CreateAccount(ctx context.Context, u *User, o *Org, m *Membership) error
	// CreateOrg inserts an organisation and its first (owner) membership.
	CreateOrg(ctx context.Context, o *Org, owner *Membership) error
	UserByID(ctx context.Context, id string) (*User, error)
	// UserByEmail looks up a user by lower-cased email.
	UserByEmail(ctx context.Context, email string) (*User, error)
	OrgByID(ctx context.Context, id string) (*Org, error)
	OrgBySlug(ctx context.Context, slug string) (*Org, error)
	// SetRemovedMemberKeys stores what removing a member of orgID does to
	// their keys.
	SetRemovedMemberKeys(ctx context.Context, orgID string, d KeyDisposal) error
}

// MembershipStore holds memberships.
type MembershipStore interface {
	Membership(ctx context.Context, orgID, userID string) (*Membership, error)
	// UserOrgs lists the user's organisations, oldest membership first.
	UserOrgs(ctx context.Context, userID string) ([]OrgMembership, error)
	// OrgMembers lists an organisation's members, oldest first.
	OrgMembers(ctx context.Context, orgID string) ([]Member, error)
	// SetRole changes a member's role; it returns ErrLastOwner when that would
	// leave the organisation without an owner (checked inside the transaction).
	SetRole(ctx context.Context, orgID, userID string, role Role) error
	// DeleteMembership removes a member, with the same last-owner rule, and
	// revokes (KeysRevoke) or suspends (KeysSuspend), at at, every live key
	// the member created in the organisation, in one transaction: a removed
	// member's keys stop serving with them.
	DeleteMembership(ctx context.Context, orgID, userID string, at time.Time, keys KeyDisposal) error
}

// InvitationStore holds invitations.
type InvitationStore interface {
	CreateInvitation(ctx context.Context, inv *Invitation) error
	InvitationByTokenHash(ctx context.Context, tokenHash string) (*Invitation, error)
	// OrgInvitations lists an organisation's pending (unaccepted) invitations.
	OrgInvitations(ctx context.Context, orgID string) ([]Invitation, error)
	// DeleteInvitation deletes orgID's pending invitation invitationID;
	// ErrNotFound when there is none (unknown, accepted, another org's).
	DeleteInvitation(ctx context.Context, orgID, invitationID string) error
	// AcceptInvitation marks the invitation accepted (ErrInvitationInvalid if
	// it already was), inserts newUser when non-nil, and inserts m (or updates
	// the role of an existing membership), in one transaction.
	AcceptInvitation(ctx context.Context, invitationID string, newUser *User, m *Membership, at time.Time) error
}

// SessionStore holds console sessions.
type SessionStore interface {
	CreateSession(ctx context.Context, s *Session) error
	SessionByID(ctx context.Context, id string) (*Session, error)
	// RotateRefresh replaces the refresh hash if it still equals oldHash
	// (ErrConflict otherwise) and records the refresh time.
	RotateRefresh(ctx context.Context, id, oldHash, newHash string, at time.Time) error
	// SetSessionOrg switches the organisation a session acts in.
	SetSessionOrg(ctx context.Context, id, orgID string) error
	// RevokeSession marks a session revoked; revoking twice is not an error.
	RevokeSession(ctx context.Context, id string, at time.Time) error
}

// KeyLookup is what the hot-path Authenticator needs.
type KeyLookup interface {
	// KeyByHash finds a key (revoked and expired ones included) by the hex
	// SHA-256 of its plaintext.
	KeyByHash(ctx context.Context, hash string) (*Key, error)
	// TouchKeys records last-used times, one batched write.
	TouchKeys(ctx context.Context, used map[string]time.Time) error
}

// KeyStore holds rk_ keys.
type KeyStore interface {
	KeyLookup
	CreateKey(ctx context.Context, k *Key) error
	// OrgKeys lists an organisation's keys, newest first.
	OrgKeys(ctx context.Context, orgID string) ([]Key, error)
	OrgKey(ctx context.Context, orgID, id string) (*Key, error)
	// UpdateKey writes name, scopes, policy, alpha, limits and expiry of the
	// key with k.ID in k.OrgID.
	UpdateKey(ctx context.Context, k *Key) error
	// RevokeKey marks a key revoked; revoking twice keeps the first time.
	RevokeKey(ctx context.Context, orgID, id string, at time.Time) error
	// ReinstateKey clears a key's suspension (a no-op on a key that is not
	// suspended).
	ReinstateKey(ctx context.Context, orgID, id string) error
}

// CredentialStore holds sealed BYOK credentials. Writes of ciphertext check,
// in their transaction, that the org's data key still has c.DEKVersion
// (ErrDataKeyChanged otherwise), so nothing is sealed under a replaced DEK.
type CredentialStore interface {
	// CreateCredential inserts c; one credential per org and provider.
	CreateCredential(ctx context.Context, c *Credential) error
	// OrgCredentials lists an organisation's credentials, oldest first.
	OrgCredentials(ctx context.Context, orgID string) ([]Credential, error)
	OrgCredential(ctx context.Context, orgID, id string) (*Credential, error)
	CredentialByProvider(ctx context.Context, orgID, provider string) (*Credential, error)
	// UpdateCredentialSecret writes ciphertext, last four, DEK version and
	// rotation time of c.ID in c.OrgID.
	UpdateCredentialSecret(ctx context.Context, c *Credential) error
	DeleteCredential(ctx context.Context, orgID, id string) error
}

// DataKeyStore holds wrapped organisation data keysets.
type DataKeyStore interface {
	DataKey(ctx context.Context, orgID string) (*DataKey, error)
	// CreateDataKey inserts an org's first DEK; ErrConflict if one exists.
	CreateDataKey(ctx context.Context, dk *DataKey) error
	// DataKeysAfter pages through all data keys ordered by org id.
	DataKeysAfter(ctx context.Context, afterOrgID string, limit int) ([]DataKey, error)
	// RewrapDataKey stores a re-wrapped (same) DEK if the row still has
	// version and oldWrapped; ErrConflict otherwise.
	RewrapDataKey(ctx context.Context, orgID string, version int64, oldWrapped, newWrapped []byte, at time.Time) error
	// ReencryptDataKey runs one transaction that locks the org's data key
	// (ErrConflict unless it still has oldVersion), reads every credential
	// of the org under that lock, calls reseal with them, and stores the
	// data key and credentials reseal returns: every credential of the org,
	// each sealed under the new key (version oldVersion+1). Concurrent
	// credential writes wait for the lock and then see ErrDataKeyChanged.
	// reseal does no I/O; an error from it aborts the transaction.
	ReencryptDataKey(ctx context.Context, orgID string, oldVersion int64, reseal Reseal) error
}

// Reseal re-seals an organisation's credentials under a fresh data key and
// returns that key (wrapped) and the re-sealed credentials.
type Reseal func(creds []Credential) (*DataKey, []Credential, error)

// Store is everything tenancy persists.
type Store interface {
	AccountStore
	MembershipStore
	InvitationStore
	SessionStore
	KeyStore
	CredentialStore
	DataKeyStore
}
