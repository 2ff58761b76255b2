package catalog_test

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/heddle-gw/heddle/catalog"
)

// TestImportLiteLLM reads a small file in LiteLLM's format: a dated upstream
// id and a "gemini/" key match catalog models, other providers' entries,
// unknown models and non-chat modes are left out, an unchanged price is
// counted, and the override loads as a new price version with the new prices.
func TestImportLiteLLM(t *testing.T) {
	base, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("testdata/litellm_prices.json")
	if err != nil {
		t.Fatal(err)
	}
	imp, err := catalog.ImportLiteLLM(base, data)
	if err != nil {
		t.Fatal(err)
	}
	want := []catalog.PriceChange{
		{Model: "claude-sonnet-4-5", Before: catalog.Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
			After: catalog.Price{Input: 2.5, Output: 12.5, CacheRead: 0.25, CacheWrite: 3.125}},
		{Model: "gemini-2.5-flash", Before: catalog.Price{Input: 0.3, Output: 2.5, CacheRead: 0.03},
			After: catalog.Price{Input: 0.3, Output: 2.4, CacheRead: 0.03}},
	}
	if len(imp.Changes) != len(want) {
		t.Fatalf("changes %+v, want %+v", imp.Changes, want)
	}
	for i := range want {
		if imp.Changes[i] != want[i] {
			t.Errorf("change %d = %+v, want %+v", i, imp.Changes[i], want[i])
		}
	}
	// gpt-5 is unchanged; gpt-7-preview names no catalog model.
	if imp.Unchanged != 1 || imp.Unmatched != 1 {
		t.Errorf("unchanged %d unmatched %d, want 1 and 1", imp.Unchanged, imp.Unmatched)
	}
	encoded, err := json.Marshal(imp.Override)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := catalog.WithOverride(base, encoded)
	if err != nil {
		t.Fatal(err)
	}
	if merged.Version == base.Version || merged.Version != base.Version+"+"+imp.Override.Version || len(imp.Override.Version) != len("litellm-")+12 {
		t.Errorf("version %q (override %q), want a new price version", merged.Version, imp.Override.Version)
	}
	m, _ := merged.Lookup("claude-sonnet-4-5")
	if m.Price != want[0].After || len(m.Bindings) != 2 || len(m.Aliases) != 2 {
		t.Errorf("merged claude-sonnet-4-5 %+v", m)
	}
	if len(merged.Models()) != len(base.Models()) {
		t.Errorf("the import added or removed models: %d -> %d", len(base.Models()), len(merged.Models()))
	}
	again, _ := catalog.ImportLiteLLM(base, data)
	if again.Override.Version != imp.Override.Version {
		t.Error("the version is not a function of the file")
	}
}

func TestImportLiteLLMRejects(t *testing.T) {
	base, _ := catalog.Default()
	for name, data := range map[string]string{
		"not json":       `{`,
		"negative price": `{"gpt-5": {"input_cost_per_token": -1, "litellm_provider": "openai", "mode": "chat"}}`,
		"bad entry":      `{"gpt-5": {"input_cost_per_token": "cheap", "litellm_provider": "openai"}}`,
	} {
		if _, err := catalog.ImportLiteLLM(base, []byte(data)); !errors.Is(err, catalog.ErrInvalid) {
			t.Errorf("%s: err %v, want ErrInvalid", name, err)
		}
	}
}
