package tenancy

import (
	"slices"
	"strings"
)

// Scope is something an rk_ key may be used for.
type Scope string

// Scopes.
const (
	ScopeInference     Scope = "inference"
	ScopeRoute         Scope = "route"
	ScopeAnalyticsRead Scope = "analytics:read"
)

// AllScopes lists every scope.
var AllScopes = []Scope{ScopeInference, ScopeRoute, ScopeAnalyticsRead}

// DefaultScopes are given to a key created without scopes.
var DefaultScopes = []Scope{ScopeInference, ScopeRoute}

// Policy is a key's routing policy.
type Policy string

// Routing policies.
const (
	// PolicyExplicit serves the requested model; only "auto" is routed.
	PolicyExplicit Policy = "explicit"
	// PolicyRouteAll routes every request; the requested model is the
	// quality ceiling and the savings baseline.
	PolicyRouteAll Policy = "route-all"
)

// Valid reports whether p is a known policy.
func (p Policy) Valid() bool { return p == PolicyExplicit || p == PolicyRouteAll }

// normalizeScopes validates, de-duplicates and orders scopes.
func normalizeScopes(field string, in []Scope) ([]Scope, error) {
	if len(in) == 0 {
		return slices.Clone(DefaultScopes), nil
	}
	out := make([]Scope, 0, len(in))
	for _, s := range AllScopes {
		if slices.Contains(in, s) {
			out = append(out, s)
		}
	}
	for _, s := range in {
		if !slices.Contains(AllScopes, s) {
			return nil, invalid(field, "unknown scope "+quoteShort(string(s))+" (want inference, route, analytics:read)")
		}
	}
	return out, nil
}

// JoinScopes renders scopes space-separated (the storage form).
func JoinScopes(s []Scope) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = string(v)
	}
	return strings.Join(parts, " ")
}

// SplitScopes parses the storage form of scopes.
func SplitScopes(s string) []Scope {
	var out []Scope
	for _, f := range strings.Fields(s) {
		out = append(out, Scope(f))
	}
	return out
}

// quoteShort quotes user input for an error message, truncated.
func quoteShort(s string) string {
	if len(s) > 32 {
		s = s[:32] + "..."
	}
	return `"` + strings.ToValidUTF8(s, "?") + `"`
}
