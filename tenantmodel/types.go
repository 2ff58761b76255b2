package tenantmodel

import (
	"time"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/llm"
)

// Provider is an organisation's own OpenAI-compatible endpoint.
type Provider struct {
	OrgID string
	// Name is a lower-case slug, unique in the organisation and never a
	// catalog provider's name; it is also the provider of its credential.
	Name    string
	BaseURL string
	// Format is the wire format the endpoint speaks (openai_chat).
	Format llm.Format
	// CredentialID is the BYOK credential holding the endpoint's secret.
	CredentialID string
	CreatedBy    string
	CreatedAt    time.Time
}

// Model is a model an organisation registered on one of its providers.
type Model struct {
	OrgID string
	// ID is the lower-case name clients send; never a catalog id or alias.
	ID            string
	Provider      string
	Upstream      string // the endpoint's model id
	Format        llm.Format
	ContextWindow int
	MaxOutput     int
	Tools         bool
	Vision        bool
	Price         catalog.Price // USD per million tokens
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Catalog returns m as a catalog model with one binding to its provider, so
// pricing and listings treat it like any other model.
func (m Model) Catalog() catalog.Model {
	return catalog.Model{
		ID: m.ID, Family: "tenant", ContextWindow: m.ContextWindow, MaxOutput: m.MaxOutput,
		Capabilities: catalog.Capabilities{Tools: m.Tools, Vision: m.Vision},
		Price:        m.Price,
		Bindings:     []catalog.Binding{{Provider: m.Provider, Upstream: m.Upstream}},
	}
}

// Set is one organisation's providers and models.
type Set struct {
	Providers []Provider
	Models    []Model
}

// Model returns the model with id and its provider.
func (s Set) Model(id string) (Model, Provider, bool) {
	for _, m := range s.Models {
		if m.ID != id {
			continue
		}
		for _, p := range s.Providers {
			if p.Name == m.Provider {
				return m, p, true
			}
		}
	}
	return Model{}, Provider{}, false
}

// ProviderInput is a provider to add, with its secret.
type ProviderInput struct {
	Name    string
	BaseURL string
	Secret  string
}

// ModelInput is a model to add.
type ModelInput struct {
	ID            string
	Provider      string
	Upstream      string
	Format        llm.Format // "" means openai_chat
	ContextWindow int
	MaxOutput     int
	Tools         bool
	Vision        bool
	Price         catalog.Price
}

// ModelPatch changes some fields of a model; nil leaves a field as it is.
type ModelPatch struct {
	Upstream      *string
	ContextWindow *int
	MaxOutput     *int
	Tools         *bool
	Vision        *bool
	Price         *catalog.Price
}
