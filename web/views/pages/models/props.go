// Package models holds the console's Models page: the models the
// organisation can call (catalog, its own, its aliases), its own
// OpenAI-compatible providers and models, and the forms that add them.
//
// Ring: presentation. No I/O.
package models

import "github.com/heddle-gw/heddle/web/views/layout"

// ModelRow is one model in a list; prices are USD per million tokens.
type ModelRow struct {
	ID         string
	Provider   string // the tenant provider (own models only)
	Upstream   string // the endpoint's model id (own models only)
	Context    string
	MaxOutput  string
	Tools      bool
	Vision     bool
	Input      string
	Output     string
	CacheRead  string
	CacheWrite string
	// AliasOf is, for an organisation alias, the model (or "auto") it
	// names; "" for a model.
	AliasOf string
}

// ProviderRow is one of the organisation's own providers.
type ProviderRow struct {
	Name    string
	BaseURL string
	Created string
	Models  int
}

// ProviderForm is the add-provider form with the values and errors of a
// failed submission. The secret is never echoed back.
type ProviderForm struct {
	Name    string
	BaseURL string
	Error   string
	Fields  map[string]string
}

// ModelForm is the add-model form with the values and errors of a failed
// submission.
type ModelForm struct {
	ID            string
	Provider      string
	Upstream      string
	ContextWindow string
	MaxOutput     string
	Tools         bool
	Vision        bool
	Input         string
	Output        string
	CacheRead     string
	CacheWrite    string
	Error         string
	Fields        map[string]string
}

// ContentProps is the page's main area, swapped whole by htmx after a
// change.
type ContentProps struct {
	CSRF    string
	CanEdit bool
	// Callable lists every model the organisation's keys may ask for;
	// CallableError says why it could not be read.
	Callable      []ModelRow
	CallableError string
	Providers     []ProviderRow
	Models        []ModelRow
	ProviderForm  ProviderForm
	ModelForm     ModelForm
	Notice        string
	Error         string
}

// PageProps is the whole Models page.
type PageProps struct {
	Layout  layout.Props
	Content ContentProps
}
