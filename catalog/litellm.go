package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// liteLLMEntry is one model of LiteLLM's community price file
// (model_prices_and_context_window.json): prices are US dollars per token.
type liteLLMEntry struct {
	Provider        string   `json:"litellm_provider"`
	Mode            string   `json:"mode"`
	Input           *float64 `json:"input_cost_per_token"`
	Output          *float64 `json:"output_cost_per_token"`
	CacheRead       *float64 `json:"cache_read_input_token_cost"`
	CacheWrite      *float64 `json:"cache_creation_input_token_cost"`
	MaxInputTokens  int      `json:"max_input_tokens"`
	MaxOutputTokens int      `json:"max_output_tokens"`
}

// liteLLMProviders map LiteLLM's provider names to the catalog's first-party
// providers; entries of other providers (Bedrock, Vertex, Azure, ...) price
// other bindings and are skipped.
var liteLLMProviders = map[string]string{
	"anthropic": "anthropic", "openai": "openai", "gemini": "google", "deepseek": "deepseek",
}

// PriceChange is one model's price before (the embedded catalog's) and
// after an import.
type PriceChange struct {
	Model         string
	Before, After Price
}

// Import is the result of reading a LiteLLM price file against a catalog.
type Import struct {
	// Override is the operator override file to write: every changed model
	// with its new price, under a version naming the imported content, so
	// the prices form a new price version.
	Override File
	// Changes are the models whose price differs, sorted by id.
	Changes []PriceChange
	// Unchanged counts matched models whose price is the same.
	Unchanged int
	// Unmatched counts first-party chat or embedding entries that name no
	// catalog model (the catalog is not extended by an import).
	Unmatched int
}

// ImportLiteLLM reads LiteLLM's model_prices_and_context_window.json and
// matches each entry of a first-party provider (anthropic, openai, gemini,
// deepseek) to a model of base by id, alias or upstream id on that provider
// (a "provider/" prefix in the key is dropped); when several keys name one
// model, the key equal to the upstream id the provider bills is used. A
// matched model whose price
// differs from base's gets the file's price (per million tokens, rounded to
// 1e-6 dollars; a price the file does not give keeps base's). Prices that
// are negative or not numbers make the import fail.
func ImportLiteLLM(base *Catalog, data []byte) (Import, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return Import{}, fmt.Errorf("%w: litellm file: %w", ErrInvalid, err)
	}
	sum := sha256.Sum256(data)
	imp := Import{Override: File{Version: "litellm-" + hex.EncodeToString(sum[:6]),
		Sources: map[string]string{"litellm": "LiteLLM model_prices_and_context_window.json, sha256 " + hex.EncodeToString(sum[:])}}}
	// Several keys may name one model (its id, its dated upstream id): the
	// one naming the upstream id the provider bills is preferred, then the
	// first in key order.
	type candidate struct {
		key      string
		entry    liteLLMEntry
		upstream bool
	}
	chosen := map[string]candidate{}
	var order []string
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if key == "sample_spec" {
			continue
		}
		var e liteLLMEntry
		if err := json.Unmarshal(raw[key], &e); err != nil {
			return Import{}, fmt.Errorf("%w: litellm entry %q: %w", ErrInvalid, key, err)
		}
		prov, ok := liteLLMProviders[e.Provider]
		if !ok || (e.Mode != "chat" && e.Mode != "responses" && e.Mode != "embedding" && e.Mode != "") {
			continue
		}
		name := key
		if p, rest, found := strings.Cut(key, "/"); found && liteLLMProviders[p] == prov {
			name = rest
		}
		m, found := base.match(prov, name)
		if !found {
			imp.Unmatched++
			continue
		}
		b, _ := bindingOn(m, prov)
		c := candidate{key: key, entry: e, upstream: strings.EqualFold(b.Upstream, name)}
		prev, seen := chosen[m.ID]
		if !seen {
			order = append(order, m.ID)
		}
		if !seen || (c.upstream && !prev.upstream) {
			chosen[m.ID] = c
		}
	}
	for _, id := range order {
		m, _ := base.Lookup(id)
		c := chosen[id]
		after, err := c.entry.price(m.Price)
		if err != nil {
			return Import{}, fmt.Errorf("%w: litellm entry %q: %w", ErrInvalid, c.key, err)
		}
		if after == m.Price {
			imp.Unchanged++
			continue
		}
		imp.Changes = append(imp.Changes, PriceChange{Model: m.ID, Before: m.Price, After: after})
		m.Price = after
		imp.Override.Models = append(imp.Override.Models, m)
	}
	sort.Slice(imp.Changes, func(i, j int) bool { return imp.Changes[i].Model < imp.Changes[j].Model })
	sort.Slice(imp.Override.Models, func(i, j int) bool { return imp.Override.Models[i].ID < imp.Override.Models[j].ID })
	return imp, nil
}

// match finds the model name names on provider: by id or alias when the
// model has a binding there, else by a binding's upstream id.
func (c *Catalog) match(provider, name string) (Model, bool) {
	if m, err := c.Lookup(name); err == nil {
		if _, bound := bindingOn(m, provider); bound {
			return m, true
		}
	}
	return c.ModelByUpstream(provider, name)
}

// price converts the entry's per-token prices to per-million prices, keeping
// prev's where the entry gives none.
func (e liteLLMEntry) price(prev Price) (Price, error) {
	out := prev
	for _, f := range []struct {
		v   *float64
		dst *float64
		n   string
	}{{e.Input, &out.Input, "input_cost_per_token"}, {e.Output, &out.Output, "output_cost_per_token"},
		{e.CacheRead, &out.CacheRead, "cache_read_input_token_cost"}, {e.CacheWrite, &out.CacheWrite, "cache_creation_input_token_cost"}} {
		if f.v == nil {
			continue
		}
		if *f.v < 0 || math.IsNaN(*f.v) || math.IsInf(*f.v, 0) {
			return Price{}, fmt.Errorf("%s %v is not a price", f.n, *f.v)
		}
		*f.dst = math.Round(*f.v*1e6*1e6) / 1e6
	}
	return out, nil
}
