package catalog

import (
	"errors"
	"testing"
)

func TestDefaultCatalog(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatalf("Default: %v", err)
	}
	if c.Version == "" || len(c.Sources) == 0 {
		t.Fatalf("version %q sources %d: the default catalog must be dated and sourced", c.Version, len(c.Sources))
	}
	if n := len(c.Models()); n < 10 {
		t.Fatalf("default catalog has %d models, want >= 10", n)
	}
	for _, m := range c.Models() {
		if m.Price.Input <= 0 || m.Price.Output <= 0 {
			t.Errorf("%s: input/output price must be positive, got %+v", m.ID, m.Price)
		}
		for _, b := range m.Bindings {
			if _, err := c.Provider(b.Provider); err != nil {
				t.Errorf("%s: %v", m.ID, err)
			}
		}
	}
}

func TestLookup(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, want string
		err        error
	}{
		{"claude-sonnet-4-5", "claude-sonnet-4-5", nil},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5", nil},
		{"CLAUDE-SONNET-4-5", "claude-sonnet-4-5", nil},
		{"models/gemini-2.5-flash", "gemini-2.5-flash", nil},
		{"openai/gpt-5-mini", "gpt-5-mini", nil},
		{"no-such-model", "", ErrUnknownModel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := c.Lookup(tt.name)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if m.ID != tt.want {
				t.Fatalf("id = %q, want %q", m.ID, tt.want)
			}
		})
	}
}

func TestOverride(t *testing.T) {
	base, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	override := []byte(`{
	  "version": "ops-1",
	  "providers": [{"name": "local", "format": "openai_chat", "base_url": "http://10.0.0.5/v1", "compatible": true}],
	  "models": [
	    {"id": "gpt-5-mini", "family": "openai", "tier": 2, "context_window": 400000, "max_output": 128000,
	     "price": {"input": 0.2, "output": 1.5}, "bindings": [{"provider": "openai", "upstream": "gpt-5-mini"}]},
	    {"id": "local-llama", "family": "meta", "tier": 1, "context_window": 8192, "max_output": 2048,
	     "price": {"input": 0.01, "output": 0.02}, "bindings": [{"provider": "local", "upstream": "llama-3-8b"}]}
	  ],
	  "remove": ["deepseek-chat"]
	}`)
	c, err := WithOverride(base, override)
	if err != nil {
		t.Fatalf("WithOverride: %v", err)
	}
	if c.Version != base.Version+"+ops-1" {
		t.Errorf("version = %q", c.Version)
	}
	m, err := c.Lookup("gpt-5-mini")
	if err != nil || m.Price.Input != 0.2 || m.Price.Output != 1.5 {
		t.Errorf("gpt-5-mini = %+v, %v; want the overridden price", m.Price, err)
	}
	if _, err := c.Lookup("local-llama"); err != nil {
		t.Errorf("added model: %v", err)
	}
	if _, err := c.Lookup("deepseek-chat"); !errors.Is(err, ErrUnknownModel) {
		t.Errorf("removed model still found: %v", err)
	}
	if old, _ := base.Lookup("gpt-5-mini"); old.Price.Input != 0.25 {
		t.Errorf("base catalog changed: %+v", old.Price)
	}
	if len(c.Models()) != len(base.Models()) {
		t.Errorf("models = %d, want %d (one added, one removed)", len(c.Models()), len(base.Models()))
	}
}

func TestOverrideInvalid(t *testing.T) {
	base, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]string{
		"unknown field":    `{"modelz": []}`,
		"unknown provider": `{"models": [{"id": "x", "tier": 1, "context_window": 1, "max_output": 1, "bindings": [{"provider": "nope", "upstream": "x"}]}]}`,
		"negative price":   `{"models": [{"id": "x", "tier": 1, "context_window": 1, "max_output": 1, "price": {"input": -1}, "bindings": [{"provider": "openai", "upstream": "x"}]}]}`,
		"bad tier":         `{"models": [{"id": "x", "tier": 9, "context_window": 1, "max_output": 1, "bindings": [{"provider": "openai", "upstream": "x"}]}]}`,
		"duplicate alias":  `{"models": [{"id": "x", "aliases": ["gpt-5"], "tier": 1, "context_window": 1, "max_output": 1, "bindings": [{"provider": "openai", "upstream": "x"}]}]}`,
	}
	for name, body := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := WithOverride(base, []byte(body)); !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
		})
	}
}
