package tenancy

import "time"

// Org is an organisation, Heddle's tenant.
type Org struct {
	ID   string
	Name string
	Slug string
	// RemovedMemberKeys is what removing a member does to the keys they
	// created in the organisation ("" is KeysRevoke).
	RemovedMemberKeys KeyDisposal
	CreatedAt         time.Time
}

// KeyDisposal is what happens to a removed member's keys.
type KeyDisposal string

// Key disposals.
const (
	// KeysRevoke revokes them for good (the default).
	KeysRevoke KeyDisposal = "revoke"
	// KeysSuspend suspends them: they refuse with ErrKeySuspended until an
	// admin reinstates them.
	KeysSuspend KeyDisposal = "suspend"
)

// Valid reports whether d is a known disposal.
func (d KeyDisposal) Valid() bool { return d == KeysRevoke || d == KeysSuspend }

// User is a person who logs in to the console.
type User struct {
	ID    string
	Email string
	// PasswordHash is an argon2id hash in PHC string form; never exposed.
	PasswordHash string
	CreatedAt    time.Time
}

// Membership puts a user in an organisation with a role.
type Membership struct {
	OrgID     string
	UserID    string
	Role      Role
	CreatedAt time.Time
}

// Member is a membership with the member's email, for listings.
type Member struct {
	Membership
	Email string
}

// OrgMembership is one of a user's organisations and the role held there.
type OrgMembership struct {
	Org  Org
	Role Role
}

// Invitation invites an email address into an organisation with a role.
// Only the SHA-256 hash of its token is stored.
type Invitation struct {
	ID         string
	OrgID      string
	Email      string
	Role       Role
	TokenHash  string
	InvitedBy  string
	CreatedAt  time.Time
	ExpiresAt  time.Time
	AcceptedAt *time.Time
}

// Session is a console log-in: the server-side row behind a JWT access token
// (its jti) and the refresh token (stored as a hash).
type Session struct {
	ID     string
	UserID string
	// OrgID is the organisation the session currently acts in.
	OrgID       string
	RefreshHash string
	CreatedAt   time.Time
	RefreshedAt time.Time
	ExpiresAt   time.Time
	RevokedAt   *time.Time
}

// Active reports whether the session is neither revoked nor expired at now.
func (s *Session) Active(now time.Time) bool {
	return s.RevokedAt == nil && now.Before(s.ExpiresAt)
}

// Limits are a key's rate limits and budgets; zero means no limit.
type Limits struct {
	RPM                 int   // requests per minute
	TPM                 int   // tokens per minute
	DailyBudgetMicros   int64 // US micro-dollars per UTC day
	MonthlyBudgetMicros int64 // US micro-dollars per UTC month
	// SoftBudgets makes both budgets soft: spending past them raises an
	// alert and refuses nothing (the default, false, is hard: 402).
	SoftBudgets bool
}

// Key is an rk_ API key. Only its SHA-256 hash and display prefix are stored.
type Key struct {
	ID        string
	OrgID     string
	CreatedBy string // user id; empty when created from the CLI
	Name      string
	Prefix    string // "rk_" + the first 8 characters, for display
	Hash      string // hex SHA-256 of the whole key
	Scopes    []Scope
	Policy    Policy
	// Alpha is the key's quality/cost dial in [0,1]; nil means the org's.
	Alpha  *float64
	Limits Limits
	// Tags are recorded on every request of the key (with the
	// x-heddle-tags header's), normalised by NormTags.
	Tags      []string
	ExpiresAt *time.Time
	RevokedAt *time.Time
	// SuspendedAt is set while the key is suspended (its creator left an
	// organisation that suspends such keys).
	SuspendedAt *time.Time
	LastUsedAt  *time.Time
	CreatedAt   time.Time
}

// Credential is a provider secret of an organisation, sealed by the vault.
// Ciphertext is Tink AES-256-GCM under the org's data keyset, bound to
// org id, credential id and provider.
type Credential struct {
	ID         string
	OrgID      string
	Provider   string
	Label      string
	BaseURL    string
	LastFour   string
	Ciphertext []byte
	// DEKVersion is the version of the org's data keyset that sealed it.
	DEKVersion int64
	CreatedBy  string
	CreatedAt  time.Time
	RotatedAt  *time.Time
}

// DataKey is an organisation's data keyset (DEK), wrapped by the master
// keyset (KEK) with the org id as associated data.
type DataKey struct {
	OrgID string
	// Wrapped is a Tink EncryptedKeyset in binary form.
	Wrapped []byte
	// Version increases whenever the DEK is replaced by a fresh one (not when
	// it is merely re-wrapped under a new KEK).
	Version   int64
	CreatedAt time.Time
	UpdatedAt time.Time
}
