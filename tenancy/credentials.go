package tenancy

import (
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/heddle-gw/heddle/internal/netpolicy"
)

// CredentialInput is a credential to add.
type CredentialInput struct {
	Provider string
	Label    string // "" means the provider name
	Secret   string
	BaseURL  string // "" means the provider's default endpoint
}

// CredentialsConfig configures Credentials.
type CredentialsConfig struct {
	// Resolver, when set, forgets cached secrets on add, rotate and delete.
	Resolver *CredentialResolver
	// Changed, when set, is called after a credential of orgID for provider
	// is added, rotated or deleted, so other caches on this replica that
	// depend on an organisation's credentials see the change at once.
	Changed func(orgID, provider string)
	// AllowPrivateBaseURL allows http and loopback/private base URLs
	// (development and tests); otherwise base URLs must be public https.
	AllowPrivateBaseURL bool
	// ProviderAllowed, when set, refuses providers it returns false for.
	ProviderAllowed func(name string) bool
	Now             func() time.Time // nil means time.Now
}

// Credentials manages an organisation's BYOK credentials. Secrets go in
// once and never come back out except through Reveal (for a credential
// test) and the CredentialResolver (for the data plane).
type Credentials struct {
	store CredentialStore
	vault *Vault
	cfg   CredentialsConfig
}

// NewCredentials returns a Credentials service.
func NewCredentials(store CredentialStore, vault *Vault, cfg CredentialsConfig) *Credentials {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Credentials{store: store, vault: vault, cfg: cfg}
}

// CheckInput validates and normalises a credential input without storing
// it (so a caller can test the credential first).
func (s *Credentials) CheckInput(in CredentialInput) (CredentialInput, error) {
	in.Provider = strings.TrimSpace(in.Provider)
	if !validProvider(in.Provider) || (s.cfg.ProviderAllowed != nil && !s.cfg.ProviderAllowed(in.Provider)) {
		return in, invalid("provider", "unknown provider "+quoteShort(in.Provider))
	}
	label, err := cleanName("label", in.Label, false)
	if err != nil {
		return in, err
	}
	if label == "" {
		label = in.Provider
	}
	in.Label = label
	if in.Secret, err = cleanSecret(in.Secret); err != nil {
		return in, err
	}
	if in.BaseURL, err = s.checkBaseURL(in.BaseURL); err != nil {
		return in, err
	}
	return in, nil
}

// Add seals and stores a credential in the actor's organisation; one per
// provider (ErrConflict: rotate the existing one instead).
func (s *Credentials) Add(ctx context.Context, actor Actor, in CredentialInput) (*Credential, error) {
	if err := actor.require(PermManageCredentials); err != nil {
		return nil, err
	}
	in, err := s.CheckInput(in)
	if err != nil {
		return nil, err
	}
	c := &Credential{
		ID: newID(), OrgID: actor.OrgID, Provider: in.Provider, Label: in.Label, BaseURL: in.BaseURL,
		LastFour: lastFour(in.Secret), CreatedBy: actor.UserID, CreatedAt: s.cfg.Now().UTC(),
	}
	err = s.sealed(ctx, c, in.Secret, func() error { return s.store.CreateCredential(ctx, c) })
	if err != nil {
		return nil, fmt.Errorf("tenancy: add credential: %w", err)
	}
	s.invalidate(c)
	return redact(c), nil
}

// sealed seals secret into c and runs write, re-sealing (after a short,
// growing pause) when the org's DEK was replaced in between: write returned
// ErrDataKeyChanged because an org re-encryption committed first.
func (s *Credentials) sealed(ctx context.Context, c *Credential, secret string, write func() error) error {
	const attempts = 8
	for attempt := 1; ; attempt++ {
		var err error
		c.Ciphertext, c.DEKVersion, err = s.vault.Seal(ctx, c.OrgID, c.ID, c.Provider, []byte(secret))
		if err != nil {
			return err
		}
		if err = write(); !errors.Is(err, ErrDataKeyChanged) || attempt == attempts {
			return err
		}
		s.vault.forgetDEK(c.OrgID)
		pause := time.Duration(attempt) * 5 * time.Millisecond
		select {
		case <-time.After(pause + time.Duration(mrand.Int64N(int64(pause)))):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// List lists the actor's organisation's credentials without ciphertext.
func (s *Credentials) List(ctx context.Context, actor Actor) ([]Credential, error) {
	if err := actor.require(PermRead); err != nil {
		return nil, err
	}
	cs, err := s.store.OrgCredentials(ctx, actor.OrgID)
	if err != nil {
		return nil, err
	}
	for i := range cs {
		cs[i].Ciphertext = nil
	}
	return cs, nil
}

// Get returns one credential without ciphertext.
func (s *Credentials) Get(ctx context.Context, actor Actor, id string) (*Credential, error) {
	if err := actor.require(PermRead); err != nil {
		return nil, err
	}
	c, err := s.store.OrgCredential(ctx, actor.OrgID, id)
	if err != nil {
		return nil, err
	}
	return redact(c), nil
}

// Rotate replaces a credential's secret.
func (s *Credentials) Rotate(ctx context.Context, actor Actor, id, secret string) (*Credential, error) {
	if err := actor.require(PermManageCredentials); err != nil {
		return nil, err
	}
	secret, err := cleanSecret(secret)
	if err != nil {
		return nil, err
	}
	c, err := s.store.OrgCredential(ctx, actor.OrgID, id)
	if err != nil {
		return nil, err
	}
	now := s.cfg.Now().UTC()
	c.LastFour, c.RotatedAt = lastFour(secret), &now
	if err := s.sealed(ctx, c, secret, func() error { return s.store.UpdateCredentialSecret(ctx, c) }); err != nil {
		return nil, fmt.Errorf("tenancy: rotate credential: %w", err)
	}
	s.invalidate(c)
	return redact(c), nil
}

// Delete deletes a credential.
func (s *Credentials) Delete(ctx context.Context, actor Actor, id string) error {
	if err := actor.require(PermManageCredentials); err != nil {
		return err
	}
	c, err := s.store.OrgCredential(ctx, actor.OrgID, id)
	if err != nil {
		return err
	}
	if err := s.store.DeleteCredential(ctx, actor.OrgID, id); err != nil {
		return fmt.Errorf("tenancy: delete credential: %w", err)
	}
	s.invalidate(c)
	return nil
}

// Reveal decrypts a credential for a credential test. Admins only.
func (s *Credentials) Reveal(ctx context.Context, actor Actor, id string) (Secret, error) {
	if err := actor.require(PermManageCredentials); err != nil {
		return Secret{}, err
	}
	for attempt := 0; ; attempt++ {
		c, err := s.store.OrgCredential(ctx, actor.OrgID, id)
		if err != nil {
			return Secret{}, err
		}
		pt, err := s.vault.Open(ctx, c)
		if errors.Is(err, ErrDataKeyChanged) && attempt < 2 {
			continue
		}
		if err != nil {
			return Secret{}, err
		}
		return Secret{ID: c.ID, Provider: c.Provider, Label: c.Label, Value: string(pt), BaseURL: c.BaseURL}, nil
	}
}

func (s *Credentials) invalidate(c *Credential) {
	if s.cfg.Resolver != nil {
		s.cfg.Resolver.Invalidate(c.OrgID, c.Provider)
	}
	if s.cfg.Changed != nil {
		s.cfg.Changed(c.OrgID, c.Provider)
	}
}

func redact(c *Credential) *Credential {
	out := *c
	out.Ciphertext = nil
	return &out
}

func validProvider(p string) bool {
	if p == "" || len(p) > 64 || p[0] < 'a' || p[0] > 'z' {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// Secret bounds.
const (
	minSecretLen = 8
	maxSecretLen = 8 << 10
)

func cleanSecret(s string) (string, error) {
	s = strings.TrimSpace(s)
	if len(s) < minSecretLen {
		return "", invalid("secret", "must be at least 8 characters")
	}
	if len(s) > maxSecretLen {
		return "", invalid("secret", "must be at most 8 KiB")
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return "", invalid("secret", "must not contain spaces or control characters")
		}
	}
	return s, nil
}

func lastFour(s string) string { return s[len(s)-4:] }

func (s *Credentials) checkBaseURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "", invalid("base_url", "must be an absolute http(s) URL")
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", invalid("base_url", "must not carry user info, a query or a fragment")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !s.cfg.AllowPrivateBaseURL {
			return "", invalid("base_url", "must use https")
		}
	default:
		return "", invalid("base_url", "must be an absolute http(s) URL")
	}
	if err := netpolicy.Host(u.Hostname(), s.cfg.AllowPrivateBaseURL); err != nil {
		return "", invalid("base_url", "must not point at a loopback, private, reserved or non-canonical address")
	}
	return strings.TrimRight(u.String(), "/"), nil
}
