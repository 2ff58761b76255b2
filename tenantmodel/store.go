package tenantmodel

import (
	"context"

	"github.com/heddle-gw/heddle/tenancy"
)

// ProviderStore keeps tenant providers. Every method is scoped by orgID.
type ProviderStore interface {
	// OrgProviders lists orgID's providers by name (none: empty, nil error).
	OrgProviders(ctx context.Context, orgID string) ([]Provider, error)
	// CreateProvider inserts p; tenancy.ErrConflict when the name is taken.
	CreateProvider(ctx context.Context, p *Provider) error
	// DeleteProvider removes one provider: tenancy.ErrNotFound when orgID
	// has none of that name, ErrProviderInUse while models use it.
	DeleteProvider(ctx context.Context, orgID, name string) error
}

// ModelStore keeps tenant models. Every method is scoped by orgID.
type ModelStore interface {
	// OrgModels lists orgID's models by id (none: empty, nil error).
	OrgModels(ctx context.Context, orgID string) ([]Model, error)
	// CreateModel inserts m: tenancy.ErrConflict when the id is taken,
	// tenancy.ErrNotFound when its provider is not one of m.OrgID's.
	CreateModel(ctx context.Context, m *Model) error
	// UpdateModel replaces the mutable fields of an existing model
	// (tenancy.ErrNotFound when orgID has no such model).
	UpdateModel(ctx context.Context, m *Model) error
	// DeleteModel removes one model (tenancy.ErrNotFound when absent).
	DeleteModel(ctx context.Context, orgID, id string) error
}

// Store is both stores (tenantmodel/sqlstore implements it).
type Store interface {
	ProviderStore
	ModelStore
}

// Credentials keeps the secrets of tenant providers (tenancy.Credentials,
// configured to accept tenant provider names, fits). CheckInput validates
// without storing; Add refuses a second credential for a provider with
// tenancy.ErrConflict; Delete answers tenancy.ErrNotFound for an unknown id.
type Credentials interface {
	CheckInput(in tenancy.CredentialInput) (tenancy.CredentialInput, error)
	Add(ctx context.Context, actor tenancy.Actor, in tenancy.CredentialInput) (*tenancy.Credential, error)
	Delete(ctx context.Context, actor tenancy.Actor, id string) error
}
