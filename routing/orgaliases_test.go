package routing

import (
	"errors"
	"strings"
	"testing"
)

func TestOrgSettingsAliases(t *testing.T) {
	known := func(m string) bool { return m == "claude-opus-4-5" || m == "gpt-5-mini" }
	ok := OrgSettings{Aliases: map[string]string{"claude-opus-9-9": "claude-opus-4-5", "gpt-5": "auto", "in-house": "gpt-5-mini"}}
	if err := ok.Validate(known); err != nil {
		t.Fatalf("valid aliases refused: %v", err)
	}
	for _, c := range []struct {
		name    string
		aliases map[string]string
		field   string
	}{
		{"unknown target", map[string]string{"x": "gpt-9"}, `aliases["x"]`},
		{"empty target", map[string]string{"x": ""}, `aliases["x"]`},
		{"empty name", map[string]string{"": "auto"}, "aliases"},
		{"auto as name", map[string]string{"auto": "gpt-5-mini"}, `aliases["auto"]`},
		{"upper case name", map[string]string{"Claude": "auto"}, `aliases["Claude"]`},
		{"space in name", map[string]string{"a b": "auto"}, `aliases["a b"]`},
		{"long name", map[string]string{strings.Repeat("a", MaxAliasNameLen+1): "auto"}, `aliases["` + strings.Repeat("a", MaxAliasNameLen+1) + `"]`},
		{"too many", manyAliases(MaxAliases + 1), "aliases"},
	} {
		err := OrgSettings{Aliases: c.aliases}.Validate(known)
		var fe *FieldError
		if !errors.As(err, &fe) || !errors.Is(err, ErrInvalidSettings) || fe.Field != c.field {
			t.Errorf("%s: err %v, want a FieldError on %s", c.name, err, c.field)
		}
	}
	if err := (OrgSettings{Aliases: manyAliases(MaxAliases)}).Validate(known); err != nil {
		t.Errorf("%d aliases refused: %v", MaxAliases, err)
	}

	for req, want := range map[string]string{"claude-opus-9-9": "claude-opus-4-5", "CLAUDE-OPUS-9-9": "claude-opus-4-5", "gpt-5": "auto"} {
		if got, found := ok.ResolveAlias(req); !found || got != want {
			t.Errorf("ResolveAlias(%q) = %q, %v; want %q", req, got, found, want)
		}
	}
	if got, found := ok.ResolveAlias("gpt-5-mini"); found {
		t.Errorf("an unaliased name resolved to %q", got)
	}
	if _, found := (OrgSettings{}).ResolveAlias("x"); found {
		t.Error("no aliases, yet a name resolved")
	}
}

func manyAliases(n int) map[string]string {
	m := make(map[string]string, n)
	for i := range n {
		m["m"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+strings.Repeat("y", i/26)] = "auto"
	}
	return m
}

func TestNormaliseAliases(t *testing.T) {
	got, err := NormaliseAliases(map[string]string{" Claude-Opus-9-9 ": " claude-opus-4-5 "})
	if err != nil || len(got) != 1 || got["claude-opus-9-9"] != "claude-opus-4-5" {
		t.Fatalf("NormaliseAliases = %v, %v", got, err)
	}
	_, err = NormaliseAliases(map[string]string{"a": "auto", "A ": "auto"})
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != `aliases["a"]` && fe.Field != `aliases["A "]` {
		t.Fatalf("duplicate after normalising: %v", err)
	}
	if got, err := NormaliseAliases(nil); got != nil || err != nil {
		t.Fatalf("nil: %v, %v", got, err)
	}
}
