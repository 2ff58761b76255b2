package routing

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
)

// Errors of organisation routing settings and organisation bundles. They live
// beside the types they describe (errors.go holds the scorer's sentinels).
var (
	// ErrInvalidSettings means an organisation's routing settings are wrong;
	// it is wrapped by *FieldError naming the field.
	ErrInvalidSettings = errors.New("routing: invalid routing settings")
	// ErrBundleNotFound means no bundle with that id belongs to the
	// organisation (whether or not another organisation has one).
	ErrBundleNotFound = errors.New("routing: bundle not found")
	// ErrDataTooLarge means uploaded training data exceeds its byte or
	// sample bound.
	ErrDataTooLarge = errors.New("routing: training data too large")
)

// FieldError names the input field that is wrong ("alpha", "allow[2]",
// "line 17: scores") and unwraps to its sentinel (ErrInvalidSettings,
// ErrData or ErrDataTooLarge). Its message is written for the tenant admin.
type FieldError struct {
	Field   string
	Message string
	Err     error
}

// Error returns the field and the message.
func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// Public returns the message shown to callers (the same as Error: it holds
// no secret and no prompt text).
func (e *FieldError) Public() string { return e.Error() }

// Unwrap returns the sentinel.
func (e *FieldError) Unwrap() error { return e.Err }

// OrgSettings are an organisation's routing settings (SPEC §6, §10). The
// zero value means: the default alpha, every model allowed, cache on, the
// default bundle.
type OrgSettings struct {
	// Alpha is the organisation's quality/cost dial in [0, 1]; nil means the
	// deployment default. A key's own alpha overrides it.
	Alpha *float64
	// Allow, when non-empty, lists the only models routing may choose.
	Allow []string
	// Deny lists models routing never chooses.
	Deny []string
	// CacheBypass turns the semantic cache off for the organisation.
	CacheBypass bool
	// BundleID names one of the organisation's own bundles; "" means the
	// default bundle.
	BundleID string
	// Aliases map a requested model name (lower case; requests match
	// case-insensitively) to a catalog model or to "auto" (routed). They let
	// a client that asks for a model the catalog does not list (a newer
	// Claude Code default, an in-house name) run on one the organisation
	// chose. An alias is applied before the allow and deny lists.
	Aliases map[string]string
	// PassthroughOff refuses model names the catalog lacks (400 unknown
	// model) instead of passing them through to the provider their name
	// names (catalog.PassThroughOf); the zero value passes them through.
	PassthroughOff bool
	UpdatedAt      time.Time
}

// Validate checks alpha (a number in [0, 1]), the aliases (validateAliases)
// and the allow and deny lists:
// every id known (known reports catalog membership; nil accepts any non-empty
// id), none repeated, none in both lists. Errors are *FieldError wrapping
// ErrInvalidSettings and name the field, e.g. "allow[2]".
func (s OrgSettings) Validate(known func(model string) bool) error {
	bad := func(field, format string, args ...any) error {
		return &FieldError{Field: field, Message: fmt.Sprintf(format, args...), Err: ErrInvalidSettings}
	}
	if s.Alpha != nil {
		a := *s.Alpha
		if math.IsNaN(a) || a < 0 || a > 1 {
			return bad("alpha", "must be between 0 and 1")
		}
	}
	if err := validateAliases(s.Aliases, known); err != nil {
		return err
	}
	allowed := map[string]bool{}
	for _, list := range []struct {
		name string
		ids  []string
	}{{"allow", s.Allow}, {"deny", s.Deny}} {
		seen := map[string]bool{}
		for i, m := range list.ids {
			field := fmt.Sprintf("%s[%d]", list.name, i)
			switch {
			case m == "":
				return bad(field, "is empty")
			case known != nil && !known(m):
				return bad(field, "unknown model %q", m)
			case seen[m]:
				return bad(field, "model %q is listed twice", m)
			case list.name == "deny" && allowed[m]:
				return bad(field, "model %q is both allowed and denied", m)
			}
			seen[m] = true
			if list.name == "allow" {
				allowed[m] = true
			}
		}
	}
	return nil
}

// Policy returns the settings' allow and deny lists as an eligibility Policy
// (the caller adds usable providers and the ceiling).
func (s OrgSettings) Policy() Policy {
	return Policy{Allow: s.Allow, Deny: s.Deny}
}

// OrgSettingsStore keeps organisations' routing settings. Implementations
// are safe for concurrent use and scope every query by orgID.
type OrgSettingsStore interface {
	// GetSettings returns orgID's settings: the zero value and a nil error
	// when it has none. It blocks on the store.
	GetSettings(ctx context.Context, orgID string) (OrgSettings, error)
	// PutSettings replaces orgID's settings (UpdatedAt is set by the store
	// when zero). It does not validate them: callers run Validate first.
	PutSettings(ctx context.Context, orgID string, s OrgSettings) error
}
