package catalog

import (
	"errors"
	"strings"
	"testing"
)

func TestEmbeddingModels(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, id, provider string
		input              float64
	}{
		{"text-embedding-3-small", "text-embedding-3-small", "openai", 0.02},
		{"OpenAI/Text-Embedding-3-Large", "text-embedding-3-large", "openai", 0.13},
		{"models/gemini-embedding-001", "gemini-embedding-001", "google-openai", 0.15},
	} {
		m, err := c.Embedding(tt.name)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if m.ID != tt.id || m.Price.Input != tt.input || m.Bindings[0].Provider != tt.provider {
			t.Errorf("%s: %+v", tt.name, m)
		}
		if _, err := c.Lookup(tt.id); !errors.Is(err, ErrUnknownModel) {
			t.Errorf("%s is a chat model too: %v", tt.id, err)
		}
	}
	if _, err := c.Embedding("gpt-5"); !errors.Is(err, ErrUnknownModel) {
		t.Errorf("a chat model as an embedding model: %v", err)
	}
	if p, _ := c.Provider("google-openai"); p.CredentialName() != "google" || !p.Compatible {
		t.Errorf("google-openai provider %+v", p)
	}
	if len(c.Embeddings()) != 3 {
		t.Errorf("%d embedding models", len(c.Embeddings()))
	}
}

func TestEmbeddingOverride(t *testing.T) {
	base, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	o, err := WithOverride(base, []byte(`{"version":"e1","remove":["gemini-embedding-001"],"embeddings":[
		{"id":"text-embedding-3-small","family":"openai","dimensions":1536,"max_input":8192,"price":{"input":0.01},
		 "bindings":[{"provider":"openai","upstream":"text-embedding-3-small","price":{"input":0.015}}]},
		{"id":"local-embed","family":"local","dimensions":384,"max_input":512,"price":{"input":0},
		 "bindings":[{"provider":"openrouter","upstream":"x/embed"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	small, _ := o.Embedding("text-embedding-3-small")
	if small.Price.Input != 0.01 || EmbeddingPriceOf(small, small.Bindings[0]).Input != 0.015 {
		t.Errorf("replaced model %+v", small)
	}
	if _, err := o.Embedding("openai/text-embedding-3-small"); err == nil {
		t.Error("the replaced model kept the base's alias")
	}
	if _, err := o.Embedding("gemini-embedding-001"); err == nil {
		t.Error("a removed embedding model is still there")
	}
	if _, err := o.Embedding("local-embed"); err != nil {
		t.Errorf("added embedding model: %v", err)
	}
	if _, err := base.Embedding("local-embed"); err == nil {
		t.Error("the override changed the base catalog")
	}
}

func TestEmbeddingValidate(t *testing.T) {
	base, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, model, want string }{
		{"output price", `{"id":"e","dimensions":1,"max_input":1,"price":{"input":1,"output":1},"bindings":[{"provider":"openai","upstream":"e"}]}`, "no other"},
		{"no dimensions", `{"id":"e","max_input":1,"bindings":[{"provider":"openai","upstream":"e"}]}`, "dimensions"},
		{"unknown provider", `{"id":"e","dimensions":1,"max_input":1,"bindings":[{"provider":"nope","upstream":"e"}]}`, "unknown provider"},
		{"name of a chat model", `{"id":"gpt-5","dimensions":1,"max_input":1,"bindings":[{"provider":"openai","upstream":"e"}]}`, "used twice"},
	} {
		_, err := WithOverride(base, []byte(`{"embeddings":[`+tt.model+`]}`))
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}
