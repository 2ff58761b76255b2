package catalog

import (
	"errors"
	"fmt"
	"strings"
)

// EmbeddingModel is a catalog model with the embeddings capability: it
// turns text into vectors and is never a candidate for a turn (it is kept
// apart from Models, so routing, model lists and pass-through never see it).
type EmbeddingModel struct {
	ID     string `json:"id"`
	Family string `json:"family"`
	// Dimensions is the default vector size; MaxInput the tokens per input.
	Dimensions int `json:"dimensions"`
	MaxInput   int `json:"max_input"`
	// Price.Input is charged for every input token; embeddings have no
	// output tokens.
	Price    Price     `json:"price"`
	Bindings []Binding `json:"bindings"`
	Aliases  []string  `json:"aliases,omitempty"`
}

func (m EmbeddingModel) validate(provs map[string]Provider) error {
	if m.ID == "" {
		return errors.New("embedding model with an empty id")
	}
	var errs []error
	if m.Dimensions <= 0 || m.MaxInput <= 0 {
		errs = append(errs, errors.New("dimensions and max_input must be positive"))
	}
	if m.Price.Input < 0 || m.Price.Output != 0 || m.Price.CacheRead != 0 || m.Price.CacheWrite != 0 {
		errs = append(errs, errors.New("an embedding model has a non-negative input price and no other"))
	}
	errs = append(errs, checkBindings(m.Bindings, provs)...)
	if len(errs) > 0 {
		return fmt.Errorf("embedding model %q: %w", m.ID, errors.Join(errs...))
	}
	return nil
}

// Embedding finds an embedding model by id or alias (case-insensitive).
func (c *Catalog) Embedding(name string) (EmbeddingModel, error) {
	i, ok := c.embedByName[strings.ToLower(strings.TrimPrefix(name, "models/"))]
	if !ok {
		return EmbeddingModel{}, fmt.Errorf("%w: %q is not an embedding model", ErrUnknownModel, name)
	}
	return c.embeddings[i], nil
}

// Embeddings returns every embedding model, in catalog order. The slice
// must not be modified.
func (c *Catalog) Embeddings() []EmbeddingModel { return c.embeddings }

// EmbeddingPriceOf is m's price on binding b: the binding's own when set.
func EmbeddingPriceOf(m EmbeddingModel, b Binding) Price {
	if b.Price != nil {
		return *b.Price
	}
	return m.Price
}

// buildEmbeddings adds f's embedding models to c; a name may not be shared
// with another embedding model or with a chat model.
func (c *Catalog) buildEmbeddings(ms []EmbeddingModel) []error {
	c.embedByName = map[string]int{}
	var errs []error
	for _, m := range ms {
		if err := m.validate(c.providers); err != nil {
			errs = append(errs, err)
			continue
		}
		idx := len(c.embeddings)
		c.embeddings = append(c.embeddings, m)
		for _, name := range append([]string{m.ID}, m.Aliases...) {
			key := strings.ToLower(name)
			_, dup := c.embedByName[key]
			if _, chat := c.byName[key]; dup || chat {
				errs = append(errs, fmt.Errorf("embedding model %q: name %q is used twice", m.ID, name))
			}
			c.embedByName[key] = idx
		}
	}
	return errs
}

// mergeEmbeddings is base's embedding models with the override's added or
// replaced (by id) and removed ones deleted.
func mergeEmbeddings(base, over []EmbeddingModel, removed map[string]bool) []EmbeddingModel {
	replaced := map[string]EmbeddingModel{}
	for _, m := range over {
		replaced[m.ID] = m
	}
	var out []EmbeddingModel
	for _, m := range base {
		if removed[m.ID] {
			continue
		}
		if r, ok := replaced[m.ID]; ok {
			m = r
			delete(replaced, m.ID)
		}
		out = append(out, m)
	}
	for _, m := range over {
		if _, still := replaced[m.ID]; still {
			out = append(out, m)
		}
	}
	return out
}
