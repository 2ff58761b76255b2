package routing

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Bounds of an organisation's model aliases.
const (
	MaxAliases       = 200
	MaxAliasNameLen  = 128
	AliasTargetAuto  = "auto"
	aliasFieldPrefix = "aliases"
)

// ResolveAlias returns the target the organisation maps a requested model
// name to (case-insensitive), and whether it maps it at all.
func (s OrgSettings) ResolveAlias(requested string) (string, bool) {
	if len(s.Aliases) == 0 {
		return "", false
	}
	t, ok := s.Aliases[strings.ToLower(requested)]
	return t, ok
}

// validateAliases checks the alias map: at most MaxAliases entries; every
// name non-empty, at most MaxAliasNameLen bytes, printable, without spaces,
// lower case (names match case-insensitively, so they are stored lower case)
// and not "auto"; every target "auto" or a model known reports. Errors name
// the entry, e.g. `aliases["claude-opus-5-5"]`.
func validateAliases(aliases map[string]string, known func(string) bool) error {
	if len(aliases) > MaxAliases {
		return &FieldError{Field: aliasFieldPrefix, Message: fmt.Sprintf("has %d entries, at most %d are allowed", len(aliases), MaxAliases), Err: ErrInvalidSettings}
	}
	names := make([]string, 0, len(aliases))
	for n := range aliases {
		names = append(names, n)
	}
	slices.Sort(names) // report the first bad entry deterministically
	for _, name := range names {
		target := aliases[name]
		bad := func(format string, args ...any) error {
			return &FieldError{Field: fmt.Sprintf("%s[%q]", aliasFieldPrefix, name), Message: fmt.Sprintf(format, args...), Err: ErrInvalidSettings}
		}
		switch {
		case name == "":
			return &FieldError{Field: aliasFieldPrefix, Message: "has an empty model name", Err: ErrInvalidSettings}
		case len(name) > MaxAliasNameLen:
			return bad("name is longer than %d bytes", MaxAliasNameLen)
		case strings.IndexFunc(name, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0:
			return bad("name has a space or an unprintable character")
		case name != strings.ToLower(name):
			return bad("name must be lower case (requested names match case-insensitively)")
		case name == AliasTargetAuto:
			return bad("%q always routes; it cannot be an alias", AliasTargetAuto)
		case target == "":
			return bad("target is empty")
		case target == AliasTargetAuto:
		case known != nil && !known(target):
			return bad("target %q is not a model of the catalog (or %q)", target, AliasTargetAuto)
		}
	}
	return nil
}

// NormaliseAliases lower-cases names and trims names and targets, so input
// typed by a person ("Claude-Opus-5-5 ") matches requests. Two names equal
// after that are an error naming the second.
func NormaliseAliases(in map[string]string) (map[string]string, error) {
	if len(in) == 0 {
		return nil, nil
	}
	names := make([]string, 0, len(in))
	for n := range in {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make(map[string]string, len(in))
	for _, n := range names {
		k := strings.ToLower(strings.TrimSpace(n))
		if _, dup := out[k]; dup {
			return nil, &FieldError{Field: fmt.Sprintf("%s[%q]", aliasFieldPrefix, n), Message: fmt.Sprintf("repeats the name %q", k), Err: ErrInvalidSettings}
		}
		out[k] = strings.TrimSpace(in[n])
	}
	return out, nil
}
