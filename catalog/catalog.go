package catalog

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

//go:embed default.json
var defaultJSON []byte

// Sentinel errors.
var (
	ErrUnknownModel    = errors.New("catalog: unknown model")
	ErrUnknownProvider = errors.New("catalog: unknown provider")
	ErrInvalid         = errors.New("catalog: invalid catalog")
)

// File is the on-disk shape of a catalog or an override file.
type File struct {
	Version   string            `json:"version"`
	Sources   map[string]string `json:"sources,omitempty"`
	Note      string            `json:"note,omitempty"`
	Providers []Provider        `json:"providers"`
	Models    []Model           `json:"models"`
	// Embeddings are the models with the embeddings capability.
	Embeddings []EmbeddingModel `json:"embeddings,omitempty"`
	// Remove lists model ids an override deletes from the base catalog.
	Remove []string `json:"remove,omitempty"`
}

// Catalog is an immutable, validated set of models and providers. Version
// identifies its prices: every override yields a new version string, and
// costs recorded with a request name the version they were priced with.
type Catalog struct {
	Version   string
	Sources   map[string]string
	models    []Model
	byName    map[string]int // id and aliases (lower case) -> index into models
	providers map[string]Provider
	// embeddings and embedByName: the embedding models (embedding.go).
	embeddings  []EmbeddingModel
	embedByName map[string]int
}

// Default returns the embedded default catalog.
func Default() (*Catalog, error) {
	var f File
	if err := json.Unmarshal(defaultJSON, &f); err != nil {
		return nil, fmt.Errorf("%w: embedded default: %w", ErrInvalid, err)
	}
	return build(f)
}

// WithOverride returns base with the override file's providers and models
// added or replaced (by name/id) and its Remove list deleted.
func WithOverride(base *Catalog, data []byte) (*Catalog, error) {
	var o File
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return nil, fmt.Errorf("%w: override: %w", ErrInvalid, err)
	}
	f := File{Version: base.Version, Sources: map[string]string{}}
	for k, v := range base.Sources {
		f.Sources[k] = v
	}
	for k, v := range o.Sources {
		f.Sources[k] = v
	}
	if o.Version != "" {
		f.Version = base.Version + "+" + o.Version
	} else {
		f.Version = base.Version + "+override"
	}
	provs := map[string]Provider{}
	for _, p := range base.providers {
		provs[p.Name] = p
	}
	for _, p := range o.Providers {
		provs[p.Name] = p
	}
	for _, p := range provs {
		f.Providers = append(f.Providers, p)
	}
	sort.Slice(f.Providers, func(i, j int) bool { return f.Providers[i].Name < f.Providers[j].Name })
	removed := map[string]bool{}
	for _, id := range o.Remove {
		removed[id] = true
	}
	replaced := map[string]Model{}
	for _, m := range o.Models {
		replaced[m.ID] = m
	}
	for _, m := range base.models {
		if removed[m.ID] {
			continue
		}
		if r, ok := replaced[m.ID]; ok {
			m = r
			delete(replaced, m.ID)
		}
		f.Models = append(f.Models, m)
	}
	for _, m := range o.Models {
		if _, still := replaced[m.ID]; still {
			f.Models = append(f.Models, m)
		}
	}
	f.Embeddings = mergeEmbeddings(base.embeddings, o.Embeddings, removed)
	return build(f)
}

func build(f File) (*Catalog, error) {
	c := &Catalog{Version: f.Version, Sources: f.Sources, byName: map[string]int{}, providers: map[string]Provider{}}
	var errs []error
	if f.Version == "" {
		errs = append(errs, errors.New("version is empty"))
	}
	for _, p := range f.Providers {
		if p.Name == "" || !p.Format.Valid() {
			errs = append(errs, fmt.Errorf("provider %q: name and a valid format are required", p.Name))
			continue
		}
		c.providers[p.Name] = p
	}
	for _, m := range f.Models {
		if err := m.validate(c.providers); err != nil {
			errs = append(errs, err)
			continue
		}
		idx := len(c.models)
		c.models = append(c.models, m)
		for _, name := range append([]string{m.ID}, m.Aliases...) {
			key := strings.ToLower(name)
			if _, dup := c.byName[key]; dup {
				errs = append(errs, fmt.Errorf("model %q: name %q is used twice", m.ID, name))
			}
			c.byName[key] = idx
		}
	}
	errs = append(errs, c.buildEmbeddings(f.Embeddings)...)
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, errors.Join(errs...))
	}
	return c, nil
}

func (m Model) validate(provs map[string]Provider) error {
	var errs []error
	if m.ID == "" {
		return errors.New("model with an empty id")
	}
	if m.Tier < TierSmall || m.Tier > TierFrontier {
		errs = append(errs, fmt.Errorf("tier %d out of range 1..4", m.Tier))
	}
	if m.ContextWindow <= 0 || m.MaxOutput <= 0 {
		errs = append(errs, errors.New("context_window and max_output must be positive"))
	}
	if m.Price.Input < 0 || m.Price.Output < 0 || m.Price.CacheRead < 0 || m.Price.CacheWrite < 0 {
		errs = append(errs, errors.New("prices must not be negative"))
	}
	errs = append(errs, checkBindings(m.Bindings, provs)...)
	if len(errs) > 0 {
		return fmt.Errorf("model %q: %w", m.ID, errors.Join(errs...))
	}
	return nil
}

// Models returns every model, in catalog order. The slice must not be modified.
func (c *Catalog) Models() []Model { return c.models }

// Lookup finds a model by id or alias (case-insensitive).
func (c *Catalog) Lookup(name string) (Model, error) {
	i, ok := c.byName[strings.ToLower(strings.TrimPrefix(name, "models/"))]
	if !ok {
		if i, ok = c.byName[strings.ToLower(name)]; !ok {
			return Model{}, fmt.Errorf("%w: %q", ErrUnknownModel, name)
		}
	}
	return c.models[i], nil
}

// Provider returns a provider by name.
func (c *Catalog) Provider(name string) (Provider, error) {
	p, ok := c.providers[name]
	if !ok {
		return Provider{}, fmt.Errorf("%w: %q", ErrUnknownProvider, name)
	}
	return p, nil
}

// Providers returns every provider, sorted by name.
func (c *Catalog) Providers() []Provider {
	out := make([]Provider, 0, len(c.providers))
	for _, p := range c.providers {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// PriceOf returns the price of model m served through binding b.
func PriceOf(m Model, b Binding) Price {
	if b.Price != nil {
		return *b.Price
	}
	return m.Price
}

// checkBindings is the one check of a model's bindings (chat and
// embedding models alike): at least one, each on a known provider with an
// upstream name.
func checkBindings(bindings []Binding, provs map[string]Provider) []error {
	var errs []error
	if len(bindings) == 0 {
		errs = append(errs, errors.New("at least one binding is required"))
	}
	for i, b := range bindings {
		if _, ok := provs[b.Provider]; !ok {
			errs = append(errs, fmt.Errorf("bindings[%d]: unknown provider %q", i, b.Provider))
		}
		if b.Upstream == "" {
			errs = append(errs, fmt.Errorf("bindings[%d]: upstream is empty", i))
		}
	}
	return errs
}
