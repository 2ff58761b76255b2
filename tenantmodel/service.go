package tenantmodel

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/tenancy"

	"github.com/heddle-gw/heddle/internal/ttlcache"
)

// Names is the catalog the tenant names must not collide with
// (*catalog.Catalog fits): Lookup finds ids and aliases, Provider names.
type Names interface {
	Lookup(name string) (catalog.Model, error)
	Provider(name string) (catalog.Provider, error)
}

// DefaultCacheTTL is how long an organisation's set is served from memory.
const DefaultCacheTTL = 3 * time.Second

// Config configures a Service.
type Config struct {
	// CacheTTL bounds how stale a set read by Org may be on another replica;
	// 0 means DefaultCacheTTL. Changes through this Service invalidate at once.
	CacheTTL time.Duration
	Now      func() time.Time // nil means time.Now
}

// Service manages tenant providers and models and reads an organisation's
// set for the data plane. Safe for concurrent use.
type Service struct {
	store Store
	creds Credentials
	names Names
	cfg   Config

	cache *ttlcache.Cache[Set]
}

// NewService returns a Service. creds keeps the providers' secrets; names
// is the catalog.
func NewService(store Store, creds Credentials, names Names, cfg Config) *Service {
	if cfg.CacheTTL <= 0 {
		cfg.CacheTTL = DefaultCacheTTL
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Service{store: store, creds: creds, names: names, cfg: cfg, cache: ttlcache.New[Set](cfg.CacheTTL, 0, cfg.Now)}
}

// Org returns orgID's providers and models, from a cache at most CacheTTL
// old. A store failure wraps ErrUnavailable (callers fail closed).
func (s *Service) Org(ctx context.Context, orgID string) (Set, error) {
	return s.cache.Get(ctx, orgID, func(ctx context.Context) (Set, error) {
		ps, err := s.store.OrgProviders(ctx, orgID)
		if err != nil {
			return Set{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		ms, err := s.store.OrgModels(ctx, orgID)
		if err != nil {
			return Set{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		return Set{Providers: ps, Models: ms}, nil
	})
}

// Invalidate forgets orgID's cached set.
func (s *Service) Invalidate(orgID string) { s.cache.Invalidate(orgID) }

// Providers lists the actor's organisation's providers.
func (s *Service) Providers(ctx context.Context, actor tenancy.Actor) ([]Provider, error) {
	if !actor.Can(tenancy.PermRead) {
		return nil, tenancy.ErrForbidden
	}
	return s.store.OrgProviders(ctx, actor.OrgID)
}

// Models lists the actor's organisation's models.
func (s *Service) Models(ctx context.Context, actor tenancy.Actor) ([]Model, error) {
	if !actor.Can(tenancy.PermRead) {
		return nil, tenancy.ErrForbidden
	}
	return s.store.OrgModels(ctx, actor.OrgID)
}

// AddProvider stores a provider and its secret (as a BYOK credential of the
// provider's name). Admins and owners only.
func (s *Service) AddProvider(ctx context.Context, actor tenancy.Actor, in ProviderInput) (*Provider, error) {
	if err := admin(actor); err != nil {
		return nil, err
	}
	name, err := s.checkProviderName(in.Name)
	if err != nil {
		return nil, err
	}
	if in.BaseURL == "" {
		return nil, invalid("base_url", "is required")
	}
	cin, err := s.creds.CheckInput(tenancy.CredentialInput{Provider: name, Secret: in.Secret, BaseURL: in.BaseURL})
	if err != nil {
		return nil, err
	}
	existing, err := s.store.OrgProviders(ctx, actor.OrgID)
	if err != nil {
		return nil, err
	}
	for _, p := range existing {
		if p.Name == name {
			return nil, fmt.Errorf("%w: provider %q exists", tenancy.ErrConflict, name)
		}
	}
	cred, err := s.creds.Add(ctx, actor, cin)
	if err != nil {
		return nil, err
	}
	p := &Provider{
		OrgID: actor.OrgID, Name: name, BaseURL: cin.BaseURL, Format: llm.FormatChat, CredentialID: cred.ID,
		CreatedBy: actor.UserID, CreatedAt: s.cfg.Now().UTC(),
	}
	if err := s.store.CreateProvider(ctx, p); err != nil {
		// The credential is worthless without its provider row.
		if derr := s.creds.Delete(context.WithoutCancel(ctx), actor, cred.ID); derr != nil {
			err = errors.Join(err, derr)
		}
		return nil, err
	}
	s.Invalidate(actor.OrgID)
	return p, nil
}

// DeleteProvider removes a provider without models, then its credential.
func (s *Service) DeleteProvider(ctx context.Context, actor tenancy.Actor, name string) error {
	if err := admin(actor); err != nil {
		return err
	}
	ps, err := s.store.OrgProviders(ctx, actor.OrgID)
	if err != nil {
		return err
	}
	var credID string
	found := false
	for _, p := range ps {
		if p.Name == name {
			credID, found = p.CredentialID, true
		}
	}
	if !found {
		return fmt.Errorf("%w: provider %q", tenancy.ErrNotFound, name)
	}
	if err := s.store.DeleteProvider(ctx, actor.OrgID, name); err != nil {
		return err
	}
	s.Invalidate(actor.OrgID)
	// The provider row is gone: finish with its secret even if the caller
	// has gone away, or the credential would outlive it (and block a new
	// provider of the same name).
	if err := s.creds.Delete(context.WithoutCancel(ctx), actor, credID); err != nil && !errors.Is(err, tenancy.ErrNotFound) {
		return fmt.Errorf("tenantmodel: delete credential of %q: %w", name, err)
	}
	return nil
}

// AddModel registers a model on one of the organisation's providers.
func (s *Service) AddModel(ctx context.Context, actor tenancy.Actor, in ModelInput) (*Model, error) {
	if err := admin(actor); err != nil {
		return nil, err
	}
	m, err := s.checkModel(in)
	if err != nil {
		return nil, err
	}
	m.OrgID = actor.OrgID
	m.CreatedAt = s.cfg.Now().UTC()
	m.UpdatedAt = m.CreatedAt
	if err := s.store.CreateModel(ctx, &m); err != nil {
		if errors.Is(err, tenancy.ErrNotFound) {
			return nil, invalid("provider", "is not one of this organisation's providers")
		}
		return nil, err
	}
	s.Invalidate(actor.OrgID)
	return &m, nil
}

// UpdateModel applies a patch to one of the organisation's models.
func (s *Service) UpdateModel(ctx context.Context, actor tenancy.Actor, id string, p ModelPatch) (*Model, error) {
	if err := admin(actor); err != nil {
		return nil, err
	}
	ms, err := s.store.OrgModels(ctx, actor.OrgID)
	if err != nil {
		return nil, err
	}
	var cur *Model
	for i := range ms {
		if ms[i].ID == id {
			cur = &ms[i]
		}
	}
	if cur == nil {
		return nil, fmt.Errorf("%w: model %q", tenancy.ErrNotFound, id)
	}
	in := ModelInput{ID: cur.ID, Provider: cur.Provider, Upstream: cur.Upstream, Format: cur.Format,
		ContextWindow: cur.ContextWindow, MaxOutput: cur.MaxOutput, Tools: cur.Tools, Vision: cur.Vision, Price: cur.Price}
	if p.Upstream != nil {
		in.Upstream = *p.Upstream
	}
	if p.ContextWindow != nil {
		in.ContextWindow = *p.ContextWindow
	}
	if p.MaxOutput != nil {
		in.MaxOutput = *p.MaxOutput
	}
	if p.Tools != nil {
		in.Tools = *p.Tools
	}
	if p.Vision != nil {
		in.Vision = *p.Vision
	}
	if p.Price != nil {
		in.Price = *p.Price
	}
	m, err := s.checkFields(in)
	if err != nil {
		return nil, err
	}
	m.ID, m.OrgID, m.CreatedAt, m.UpdatedAt = cur.ID, actor.OrgID, cur.CreatedAt, s.cfg.Now().UTC()
	if err := s.store.UpdateModel(ctx, &m); err != nil {
		return nil, err
	}
	s.Invalidate(actor.OrgID)
	return &m, nil
}

// DeleteModel removes one of the organisation's models.
func (s *Service) DeleteModel(ctx context.Context, actor tenancy.Actor, id string) error {
	if err := admin(actor); err != nil {
		return err
	}
	if err := s.store.DeleteModel(ctx, actor.OrgID, id); err != nil {
		return err
	}
	s.Invalidate(actor.OrgID)
	return nil
}

// admin requires the admin or owner role.
func admin(actor tenancy.Actor) error {
	if !actor.Can(tenancy.PermRead) || !actor.Role.AtLeast(tenancy.RoleAdmin) {
		return tenancy.ErrForbidden
	}
	return nil
}
