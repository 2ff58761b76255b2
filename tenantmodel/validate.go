package tenantmodel

import (
	"math"
	"strings"

	"github.com/heddle-gw/heddle/llm"
)

// Bounds of a model's description.
const (
	maxNameLen     = 40
	maxModelIDLen  = 128
	maxUpstreamLen = 200
	maxContext     = 100_000_000
	maxPrice       = 100_000 // USD per million tokens
)

// reserved are names the gateway gives a meaning of its own.
var reserved = map[string]bool{"auto": true, "heddle": true}

// checkProviderName normalises and checks a provider name: a lower-case slug
// that is no catalog provider's name.
func (s *Service) checkProviderName(raw string) (string, error) {
	name := strings.TrimSpace(raw)
	if name == "" {
		return "", invalid("name", "is required")
	}
	if len(name) > maxNameLen || !slug(name, "-_") {
		return "", invalid("name", "must be 1-40 characters of a-z, 0-9, '-' and '_', starting with a letter")
	}
	if reserved[name] {
		return "", invalid("name", "is reserved")
	}
	if _, err := s.names.Provider(name); err == nil {
		return "", invalid("name", "is the name of a catalog provider")
	}
	return name, nil
}

// checkModel checks a new model: its id and every field.
func (s *Service) checkModel(in ModelInput) (Model, error) {
	id := strings.TrimSpace(in.ID)
	switch {
	case id == "":
		return Model{}, invalid("id", "is required")
	case id != strings.ToLower(id):
		return Model{}, invalid("id", "must be lower case")
	case len(id) > maxModelIDLen || !slug(id, "-_.:/"):
		return Model{}, invalid("id", "must be 1-128 characters of a-z, 0-9, '-', '_', '.', ':' and '/', starting with a letter")
	case reserved[id] || strings.HasPrefix(id, "heddle/") || strings.HasPrefix(id, "models/"):
		return Model{}, invalid("id", "is reserved")
	}
	if _, err := s.names.Lookup(id); err == nil {
		return Model{}, invalid("id", "is a catalog model id or alias")
	}
	if strings.TrimSpace(in.Provider) == "" {
		return Model{}, invalid("provider", "is required")
	}
	in.ID = id
	return s.checkFields(in)
}

// checkFields checks everything but the id.
func (s *Service) checkFields(in ModelInput) (Model, error) {
	m := Model{ID: in.ID, Provider: strings.TrimSpace(in.Provider), Upstream: strings.TrimSpace(in.Upstream),
		Format: in.Format, ContextWindow: in.ContextWindow, MaxOutput: in.MaxOutput, Tools: in.Tools, Vision: in.Vision,
		Price: in.Price}
	if m.Format == "" {
		m.Format = llm.FormatChat
	}
	if m.Format != llm.FormatChat {
		return Model{}, invalid("format", "must be openai_chat")
	}
	if m.Upstream == "" {
		return Model{}, invalid("upstream", "is required")
	}
	if len(m.Upstream) > maxUpstreamLen || strings.ContainsFunc(m.Upstream, func(r rune) bool { return r < 0x21 || r == 0x7f }) {
		return Model{}, invalid("upstream", "must be at most 200 printable characters without spaces")
	}
	if m.ContextWindow <= 0 || m.ContextWindow > maxContext {
		return Model{}, invalid("context_window", "must be a positive number of tokens")
	}
	if m.MaxOutput <= 0 || m.MaxOutput > m.ContextWindow {
		return Model{}, invalid("max_output", "must be positive and at most the context window")
	}
	for _, p := range []struct {
		field string
		v     float64
	}{
		{"price.input", m.Price.Input}, {"price.output", m.Price.Output},
		{"price.cache_read", m.Price.CacheRead}, {"price.cache_write", m.Price.CacheWrite},
	} {
		if math.IsNaN(p.v) || p.v < 0 || p.v > maxPrice {
			return Model{}, invalid(p.field, "must be between 0 and 100000 USD per million tokens")
		}
	}
	return m, nil
}

// slug reports whether s starts with a-z and holds only a-z, 0-9 and extra.
func slug(s, extra string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte(extra, c) >= 0) {
			return false
		}
	}
	return true
}
