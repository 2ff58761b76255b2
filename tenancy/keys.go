package tenancy

import (
	"context"
	"fmt"
	"time"

	"github.com/heddle-gw/heddle/analytics"
)

// KeyInput describes a new rk_ key.
type KeyInput struct {
	Name      string
	Scopes    []Scope // empty means DefaultScopes
	Policy    Policy  // empty means PolicyExplicit
	Alpha     *float64
	Limits    Limits
	Tags      []string
	ExpiresAt *time.Time
}

// KeyPatch changes some settings of a key; nil fields stay as they are.
type KeyPatch struct {
	Name   *string
	Scopes []Scope
	Policy *Policy
	// SetAlpha applies Alpha (nil clears the key's own dial).
	SetAlpha bool
	Alpha    *float64
	RPM      *int
	TPM      *int
	Daily    *int64
	Monthly  *int64
	// SoftBudgets, when set, makes the key's budgets soft (true) or hard.
	SoftBudgets *bool
	// SetExpiry applies ExpiresAt (nil removes the expiry).
	SetExpiry bool
	ExpiresAt *time.Time
	// SetTags replaces the key's tags with Tags (empty removes them).
	SetTags bool
	Tags    []string
}

// KeysConfig configures Keys.
type KeysConfig struct {
	// Auth, when set, forgets a revoked or changed key at once on this replica.
	Auth *Authenticator
	Now  func() time.Time // nil means time.Now
}

type keysStore interface {
	KeyStore
	AccountStore
}

// Keys creates, lists, updates and revokes rk_ keys.
type Keys struct {
	store keysStore
	auth  *Authenticator
	now   func() time.Time
}

// NewKeys returns a Keys service over store.
func NewKeys(store keysStore, cfg KeysConfig) *Keys {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Keys{store: store, auth: cfg.Auth, now: cfg.Now}
}

// Create creates a key in the actor's organisation and returns it with its
// plaintext, which is shown once and never stored.
func (k *Keys) Create(ctx context.Context, actor Actor, in KeyInput) (*Key, string, error) {
	if err := actor.require(PermCreateOwnKey); err != nil {
		return nil, "", err
	}
	return k.create(ctx, actor.OrgID, actor.UserID, in)
}

// CreateForOrg creates a key for the organisation with id or slug orgRef, for
// the `heddle keys create` command; it returns the plaintext once.
func (k *Keys) CreateForOrg(ctx context.Context, orgRef string, in KeyInput) (*Key, string, error) {
	o, err := orgByRef(ctx, k.store, orgRef)
	if err != nil {
		return nil, "", fmt.Errorf("tenancy: organisation %s: %w", quoteShort(orgRef), err)
	}
	return k.create(ctx, o.ID, "", in)
}

func (k *Keys) create(ctx context.Context, orgID, userID string, in KeyInput) (*Key, string, error) {
	name, err := cleanName("name", in.Name, true)
	if err != nil {
		return nil, "", err
	}
	scopes, err := normalizeScopes("scopes", in.Scopes)
	if err != nil {
		return nil, "", err
	}
	policy := in.Policy
	if policy == "" {
		policy = PolicyExplicit
	}
	tags, err := NormTags("tags", in.Tags)
	if err != nil {
		return nil, "", err
	}
	now := k.now().UTC()
	key := &Key{
		Tags: tags,
		ID:   newID(), OrgID: orgID, CreatedBy: userID, Name: name, Scopes: scopes,
		Policy: policy, Alpha: in.Alpha, Limits: in.Limits, ExpiresAt: in.ExpiresAt, CreatedAt: now,
	}
	if err := validateKey(key, now); err != nil {
		return nil, "", err
	}
	plain := GenerateKey()
	key.Hash, key.Prefix, _ = ParseKey(plain)
	if err := k.store.CreateKey(ctx, key); err != nil {
		return nil, "", fmt.Errorf("tenancy: create key: %w", err)
	}
	return key, plain, nil
}

// List lists the actor's organisation's keys (hashes included; callers show
// only prefixes).
func (k *Keys) List(ctx context.Context, actor Actor) ([]Key, error) {
	if err := actor.require(PermRead); err != nil {
		return nil, err
	}
	return k.store.OrgKeys(ctx, actor.OrgID)
}

// Get returns one key of the actor's organisation.
func (k *Keys) Get(ctx context.Context, actor Actor, id string) (*Key, error) {
	if err := actor.require(PermRead); err != nil {
		return nil, err
	}
	return k.store.OrgKey(ctx, actor.OrgID, id)
}

// owned loads a key the actor may manage: any key for admins, their own
// keys for members.
func (k *Keys) owned(ctx context.Context, actor Actor, id string) (*Key, error) {
	if err := actor.require(PermCreateOwnKey); err != nil {
		return nil, err
	}
	key, err := k.store.OrgKey(ctx, actor.OrgID, id)
	if err != nil {
		return nil, err
	}
	if !actor.Can(PermManageKeys) && key.CreatedBy != actor.UserID {
		return nil, ErrForbidden
	}
	return key, nil
}

// Revoke revokes a key; this replica refuses it at once, others within the
// Authenticator's cache TTL.
func (k *Keys) Revoke(ctx context.Context, actor Actor, id string) error {
	key, err := k.owned(ctx, actor, id)
	if err != nil {
		return err
	}
	if err := k.store.RevokeKey(ctx, actor.OrgID, id, k.now().UTC()); err != nil {
		return fmt.Errorf("tenancy: revoke key: %w", err)
	}
	if k.auth != nil {
		k.auth.Invalidate(key.Hash)
	}
	return nil
}

// Reinstate lifts a key's suspension (admins and owners) and returns the
// key; a revoked key stays revoked (ErrConflict).
func (k *Keys) Reinstate(ctx context.Context, actor Actor, id string) (*Key, error) {
	if err := actor.require(PermManageKeys); err != nil {
		return nil, err
	}
	key, err := k.store.OrgKey(ctx, actor.OrgID, id)
	if err != nil {
		return nil, err
	}
	if key.RevokedAt != nil {
		return nil, fmt.Errorf("tenancy: key is revoked: %w", ErrConflict)
	}
	if err := k.store.ReinstateKey(ctx, actor.OrgID, id); err != nil {
		return nil, fmt.Errorf("tenancy: reinstate key: %w", err)
	}
	if k.auth != nil {
		k.auth.Invalidate(key.Hash)
	}
	key.SuspendedAt = nil
	return key, nil
}

// Update applies patch to a key and returns the updated key.
func (k *Keys) Update(ctx context.Context, actor Actor, id string, p KeyPatch) (*Key, error) {
	key, err := k.owned(ctx, actor, id)
	if err != nil {
		return nil, err
	}
	if key.RevokedAt != nil {
		return nil, fmt.Errorf("tenancy: key is revoked: %w", ErrConflict)
	}
	if err := applyPatch(key, p); err != nil {
		return nil, err
	}
	if err := validateKey(key, k.now().UTC()); err != nil {
		return nil, err
	}
	if err := k.store.UpdateKey(ctx, key); err != nil {
		return nil, fmt.Errorf("tenancy: update key: %w", err)
	}
	if k.auth != nil {
		k.auth.Invalidate(key.Hash)
	}
	return key, nil
}

func applyPatch(key *Key, p KeyPatch) error {
	if p.Name != nil {
		name, err := cleanName("name", *p.Name, true)
		if err != nil {
			return err
		}
		key.Name = name
	}
	if p.Scopes != nil {
		scopes, err := normalizeScopes("scopes", p.Scopes)
		if err != nil {
			return err
		}
		key.Scopes = scopes
	}
	if p.Policy != nil {
		key.Policy = *p.Policy
	}
	if p.SetAlpha {
		key.Alpha = p.Alpha
	}
	if p.RPM != nil {
		key.Limits.RPM = *p.RPM
	}
	if p.TPM != nil {
		key.Limits.TPM = *p.TPM
	}
	if p.Daily != nil {
		key.Limits.DailyBudgetMicros = *p.Daily
	}
	if p.Monthly != nil {
		key.Limits.MonthlyBudgetMicros = *p.Monthly
	}
	if p.SoftBudgets != nil {
		key.Limits.SoftBudgets = *p.SoftBudgets
	}
	if p.SetExpiry {
		key.ExpiresAt = p.ExpiresAt
	}
	if p.SetTags {
		tags, err := NormTags("tags", p.Tags)
		if err != nil {
			return err
		}
		key.Tags = tags
	}
	return nil
}

// NormTags checks and normalises a key's tags: each must be a valid tag
// (analytics.NormTag: lower case letters, digits and -_.:/ up to
// analytics.MaxTagLen bytes), at most analytics.MaxTags of them; duplicates
// are dropped and the rest sorted. field names the input in errors.
func NormTags(field string, tags []string) ([]string, error) {
	seen := make(map[string]bool, len(tags))
	for _, t := range tags {
		n := analytics.NormTag(t)
		if n == "" {
			return nil, invalid(field, fmt.Sprintf("%q is not a tag: use letters, digits and - _ . : / (at most %d)", t, analytics.MaxTagLen))
		}
		seen[n] = true
	}
	if len(seen) > analytics.MaxTags {
		return nil, invalid(field, fmt.Sprintf("at most %d tags", analytics.MaxTags))
	}
	return analytics.SplitTags(analytics.JoinTags(tags)), nil
}

func validateKey(k *Key, now time.Time) error {
	switch {
	case !k.Policy.Valid():
		return invalid("policy", "must be explicit or route-all")
	case k.Alpha != nil && !(*k.Alpha >= 0 && *k.Alpha <= 1):
		return invalid("alpha", "must be between 0 and 1")
	case k.Limits.RPM < 0:
		return invalid("rpm", "must not be negative")
	case k.Limits.TPM < 0:
		return invalid("tpm", "must not be negative")
	case k.Limits.DailyBudgetMicros < 0:
		return invalid("daily_budget_micros", "must not be negative")
	case k.Limits.MonthlyBudgetMicros < 0:
		return invalid("monthly_budget_micros", "must not be negative")
	case k.ExpiresAt != nil && !k.ExpiresAt.After(now):
		return invalid("expires_at", "must be in the future")
	}
	if k.ExpiresAt != nil {
		t := k.ExpiresAt.UTC()
		k.ExpiresAt = &t
	}
	return nil
}
