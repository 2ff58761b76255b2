package tenancy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// AccountsConfig configures Accounts.
type AccountsConfig struct {
	// Hasher hashes passwords; nil means NewHasher(DefaultPasswordParams).
	Hasher *Hasher
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// accountsStore is what Accounts persists through.
type accountsStore interface {
	AccountStore
	MembershipStore
}

// Accounts signs users up and in and resolves who acts in which organisation.
type Accounts struct {
	store  accountsStore
	hasher *Hasher
	now    func() time.Time
}

// NewAccounts returns an Accounts service over store.
func NewAccounts(store accountsStore, cfg AccountsConfig) *Accounts {
	if cfg.Hasher == nil {
		cfg.Hasher = NewHasher(DefaultPasswordParams)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Accounts{store: store, hasher: cfg.Hasher, now: cfg.Now}
}

// SignupInput is a new user and their first organisation.
type SignupInput struct {
	Email    string
	Password string
	// OrgName is the first organisation's name; empty derives one from the email.
	OrgName string
}

// Signup creates a user, an organisation and the user's owner membership.
// It returns ErrEmailTaken when the email is registered and a
// *ValidationError naming the field for bad input.
func (a *Accounts) Signup(ctx context.Context, in SignupInput) (*User, *Org, error) {
	email, err := NormalizeEmail("email", in.Email)
	if err != nil {
		return nil, nil, err
	}
	if err := validatePassword("password", in.Password); err != nil {
		return nil, nil, err
	}
	name, err := cleanName("org_name", in.OrgName, false)
	if err != nil {
		return nil, nil, err
	}
	if name == "" {
		name = email[:strings.IndexByte(email, '@')]
	}
	hash, err := a.hasher.Hash(ctx, in.Password)
	if err != nil {
		return nil, nil, err
	}
	now := a.now().UTC()
	u := &User{ID: newID(), Email: email, PasswordHash: hash, CreatedAt: now}
	for attempt := 0; ; attempt++ {
		o := &Org{ID: newID(), Name: name, Slug: slugCandidate(name, attempt), CreatedAt: now}
		m := &Membership{OrgID: o.ID, UserID: u.ID, Role: RoleOwner, CreatedAt: now}
		err := a.store.CreateAccount(ctx, u, o, m)
		if err == nil {
			return u, o, nil
		}
		if !errors.Is(err, ErrConflict) || errors.Is(err, ErrEmailTaken) || attempt >= 4 {
			return nil, nil, fmt.Errorf("tenancy: sign up: %w", err)
		}
	}
}

// slugCandidate is the slug of name, suffixed with random characters after
// the first attempt collided.
func slugCandidate(name string, attempt int) string {
	s := Slugify(name)
	if attempt == 0 {
		return s
	}
	suffix := strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(randomToken(6)))
	if len(suffix) > 6 {
		suffix = suffix[:6]
	}
	if len(s) > maxSlugLen-7 {
		s = strings.TrimRight(s[:maxSlugLen-7], "-")
	}
	return s + "-" + suffix
}

// Login checks an email and password. Unknown emails and wrong passwords
// both return ErrInvalidLogin after the same amount of hashing work.
func (a *Accounts) Login(ctx context.Context, email, password string) (*User, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	if len(password) > MaxPasswordLen {
		return nil, ErrInvalidLogin
	}
	u, err := a.store.UserByEmail(ctx, email)
	if errors.Is(err, ErrNotFound) {
		a.hasher.burn(ctx, password)
		return nil, ErrInvalidLogin
	}
	if err != nil {
		return nil, fmt.Errorf("tenancy: log in: %w", err)
	}
	ok, err := a.hasher.Verify(ctx, u.PasswordHash, password)
	if err != nil {
		return nil, fmt.Errorf("tenancy: log in: %w", err)
	}
	if !ok {
		return nil, ErrInvalidLogin
	}
	return u, nil
}

// User returns a user by id.
func (a *Accounts) User(ctx context.Context, id string) (*User, error) {
	return a.store.UserByID(ctx, id)
}

// UserByEmail returns a user by email (for granting the operator role).
func (a *Accounts) UserByEmail(ctx context.Context, email string) (*User, error) {
	return a.store.UserByEmail(ctx, strings.ToLower(strings.TrimSpace(email)))
}

// Orgs lists the organisations a user belongs to.
func (a *Accounts) Orgs(ctx context.Context, userID string) ([]OrgMembership, error) {
	return a.store.UserOrgs(ctx, userID)
}

// Org returns the organisation the actor acts in.
func (a *Accounts) Org(ctx context.Context, actor Actor) (*Org, error) {
	if err := actor.require(PermRead); err != nil {
		return nil, err
	}
	return a.store.OrgByID(ctx, actor.OrgID)
}

// OrgByRef finds an organisation by id or slug (for the CLI).
func (a *Accounts) OrgByRef(ctx context.Context, ref string) (*Org, error) {
	return orgByRef(ctx, a.store, ref)
}

func orgByRef(ctx context.Context, store AccountStore, ref string) (*Org, error) {
	o, err := store.OrgByID(ctx, ref)
	if errors.Is(err, ErrNotFound) {
		o, err = store.OrgBySlug(ctx, strings.ToLower(ref))
	}
	return o, err
}

// Actor resolves the role userID holds in orgID. It returns ErrNotFound when
// the user is not a member, so organisations stay invisible to outsiders.
func (a *Accounts) Actor(ctx context.Context, userID, orgID string) (Actor, error) {
	if userID == "" || orgID == "" {
		return Actor{}, ErrNotFound
	}
	m, err := a.store.Membership(ctx, orgID, userID)
	if err != nil {
		return Actor{}, err
	}
	return Actor{UserID: userID, OrgID: orgID, Role: m.Role}, nil
}

// CreateOrg creates another organisation owned by userID.
func (a *Accounts) CreateOrg(ctx context.Context, userID, name string) (*Org, error) {
	name, err := cleanName("name", name, true)
	if err != nil {
		return nil, err
	}
	now := a.now().UTC()
	for attempt := 0; ; attempt++ {
		o := &Org{ID: newID(), Name: name, Slug: slugCandidate(name, attempt), CreatedAt: now}
		err := a.store.CreateOrg(ctx, o, &Membership{OrgID: o.ID, UserID: userID, Role: RoleOwner, CreatedAt: now})
		if err == nil {
			return o, nil
		}
		if !errors.Is(err, ErrConflict) || attempt >= 4 {
			return nil, fmt.Errorf("tenancy: create org: %w", err)
		}
	}
}
