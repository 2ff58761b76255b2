package catalog

import (
	"slices"
	"strconv"
	"strings"
)

// PassThrough is a model name the catalog lacks whose provider is clear
// from the name: it is sent to that provider as is and priced, as an
// estimate, by the family's nearest catalog entry.
type PassThrough struct {
	// Name is the requested name, lower case.
	Name string
	// Provider is the catalog provider the name belongs to.
	Provider Provider
	// Upstream is the upstream model id: the name as sent, without a
	// "<provider>/" prefix.
	Upstream string
	// PricedAs is the catalog model whose price (for Provider) estimates
	// the turn's cost.
	PricedAs Model
	// Price is PricedAs's price on Provider.
	Price Price
}

// familyPrefixes map a name's prefix to its provider. "o<digit>" (OpenAI's
// reasoning models) is checked apart.
var familyPrefixes = []struct{ prefix, provider string }{
	{"claude-", "anthropic"},
	{"gpt-", "openai"},
	{"gemini-", "google"},
	{"deepseek-", "deepseek"},
}

// tierWords name a tier within a family: a pass-through name with one is
// priced like an entry with the same word (claude-opus-* like an opus).
var tierWords = map[string]bool{
	"opus": true, "sonnet": true, "haiku": true, "mini": true, "nano": true,
	"pro": true, "flash": true, "lite": true, "chat": true, "reasoner": true,
}

// ProviderOf is the catalog provider name a model name belongs to, by the
// pass-through rule: "<provider>/<model>" for any provider of c, else
// claude-* -> anthropic, gpt-* and o<digit>* -> openai, gemini-* -> google,
// deepseek-* -> deepseek. It returns the upstream id (the name without a
// provider prefix) and false when no provider is clear. It does not look at
// the catalog's models.
func (c *Catalog) ProviderOf(name string) (provider, upstream string, ok bool) {
	n := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(name)), "models/")
	if p, rest, found := strings.Cut(n, "/"); found {
		if _, known := c.providers[p]; known && rest != "" {
			return p, rest, true
		}
		return "", "", false
	}
	for _, f := range familyPrefixes {
		if strings.HasPrefix(n, f.prefix) && len(n) > len(f.prefix) {
			return f.provider, n, c.hasProvider(f.provider)
		}
	}
	if len(n) > 1 && n[0] == 'o' && n[1] >= '0' && n[1] <= '9' {
		return "openai", n, c.hasProvider("openai")
	}
	return "", "", false
}

func (c *Catalog) hasProvider(name string) bool {
	_, ok := c.providers[name]
	return ok
}

// ModelByUpstream returns the catalog model with a binding on provider
// whose upstream id is upstream (case-insensitive): "anthropic/<dated id>"
// or "openrouter/anthropic/<slug>" name a catalog model, not a pass-through.
func (c *Catalog) ModelByUpstream(provider, upstream string) (Model, bool) {
	for _, m := range c.models {
		for _, b := range m.Bindings {
			if b.Provider == provider && strings.EqualFold(b.Upstream, upstream) {
				return m, true
			}
		}
	}
	return Model{}, false
}

// PassThroughOf resolves a name the catalog lacks (Lookup fails, and it is
// no catalog model's upstream id on its provider: ModelByUpstream) by the
// pass-through rule (ProviderOf), priced by the nearest catalog entry with a
// binding on that provider: one with the same tier word if the name has one
// (opus, sonnet, haiku, mini, nano, pro, flash, lite, chat, reasoner), then
// the most leading name parts in common ("gpt-5-codex" shares "gpt-5" with
// gpt-5), then, since the price is an estimate that budgets rely on, the
// dearest (highest output, then input price), then the newest. It returns
// false when the provider is not clear or has no catalog entry to price by.
func (c *Catalog) PassThroughOf(name string) (PassThrough, bool) {
	if _, err := c.Lookup(name); err == nil {
		return PassThrough{}, false
	}
	prov, upstream, ok := c.ProviderOf(name)
	if !ok {
		return PassThrough{}, false
	}
	if _, known := c.ModelByUpstream(prov, upstream); known {
		return PassThrough{}, false
	}
	words := strings.Split(upstream, "-")
	tier := ""
	for _, w := range words {
		if tierWords[w] {
			tier = w
		}
	}
	var best *Model
	var bestPrice Price
	bestScore := [2]int{-1}
	for i := range c.models {
		m := &c.models[i]
		b, bound := bindingOn(*m, prov)
		if !bound {
			continue
		}
		mw := strings.Split(strings.ToLower(m.ID), "-")
		score := [2]int{0, commonPrefix(words, mw)}
		if tier != "" && slices.Contains(mw, tier) {
			score[0] = 1
		}
		price := PriceOf(*m, b)
		if best == nil || better(score, bestScore) || (score == bestScore && dearer(price, bestPrice, m.ID, best.ID)) {
			best, bestScore, bestPrice = m, score, price
		}
	}
	if best == nil {
		return PassThrough{}, false
	}
	return PassThrough{Name: strings.ToLower(strings.TrimSpace(name)), Provider: c.providers[prov],
		Upstream: upstream, PricedAs: *best, Price: bestPrice}, true
}

// dearer orders equally near entries: the higher output price, then input
// price, then the newer id.
func dearer(a, b Price, aID, bID string) bool {
	if a.Output != b.Output {
		return a.Output > b.Output
	}
	if a.Input != b.Input {
		return a.Input > b.Input
	}
	return newer(aID, bID)
}

func bindingOn(m Model, provider string) (Binding, bool) {
	for _, b := range m.Bindings {
		if b.Provider == provider {
			return b, true
		}
	}
	return Binding{}, false
}

func commonPrefix(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func better(a, b [2]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] > b[i]
		}
	}
	return false
}

// newer compares the version numbers in two ids ("claude-opus-4-5" is
// newer than "claude-opus-4-1", "gpt-5" than "gpt-4.1"), then the ids.
func newer(a, b string) bool {
	va, vb := versions(a), versions(b)
	for i := 0; i < len(va) && i < len(vb); i++ {
		if va[i] != vb[i] {
			return va[i] > vb[i]
		}
	}
	if len(va) != len(vb) {
		return len(va) > len(vb)
	}
	return a < b
}

func versions(id string) []int {
	var out []int
	for _, f := range strings.FieldsFunc(id, func(r rune) bool { return r < '0' || r > '9' }) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}
