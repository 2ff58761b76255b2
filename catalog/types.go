package catalog

import "github.com/heddle-gw/heddle/llm"

// Tier orders models by capability: a higher tier is stronger (and dearer).
type Tier int

// Model tiers.
const (
	TierSmall    Tier = 1
	TierMedium   Tier = 2
	TierLarge    Tier = 3
	TierFrontier Tier = 4
)

// Capabilities says what a model can do.
type Capabilities struct {
	Tools    bool `json:"tools"`
	Vision   bool `json:"vision"`
	Thinking bool `json:"thinking"`
	JSON     bool `json:"json"`
}

// Price is in US dollars per million tokens.
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
}

// Binding is one way to reach a model: a provider and its upstream model id.
type Binding struct {
	Provider string `json:"provider"`
	Upstream string `json:"upstream"`
	// Price overrides the model's price for this binding when non-nil.
	Price *Price `json:"price,omitempty"`
}

// Model is one catalog model.
type Model struct {
	ID            string       `json:"id"`
	Family        string       `json:"family"`
	Tier          Tier         `json:"tier"`
	ContextWindow int          `json:"context_window"`
	MaxOutput     int          `json:"max_output"`
	Capabilities  Capabilities `json:"capabilities"`
	Price         Price        `json:"price"`
	Bindings      []Binding    `json:"bindings"`
	// Aliases are other names callers use for this model.
	Aliases []string `json:"aliases,omitempty"`
}

// Provider is an upstream API.
type Provider struct {
	Name string `json:"name"`
	// Format is the wire format its API speaks.
	Format llm.Format `json:"format"`
	// BaseURL is the API root, e.g. https://api.openai.com/v1.
	BaseURL string `json:"base_url"`
	// Credential names the provider whose credential this one uses (the
	// Responses endpoint uses the "openai" key); empty means Name.
	Credential string `json:"credential,omitempty"`
	// Compatible marks an OpenAI-compatible API served by the generic adapter.
	Compatible bool `json:"compatible,omitempty"`
}

// CredentialName is the provider name whose credential p uses.
func (p Provider) CredentialName() string {
	if p.Credential != "" {
		return p.Credential
	}
	return p.Name
}
