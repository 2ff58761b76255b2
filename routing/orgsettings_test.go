package routing_test

import (
	"errors"
	"math"
	"testing"

	"github.com/heddle-gw/heddle/routing"
)

func ptr(f float64) *float64 { return &f }

func knownModels(ids ...string) func(string) bool {
	set := map[string]bool{}
	for _, id := range ids {
		set[id] = true
	}
	return func(m string) bool { return set[m] }
}

func TestOrgSettingsValidate(t *testing.T) {
	known := knownModels("gpt-5-mini", "claude-haiku-4-5", "claude-sonnet-4-5")
	for _, tc := range []struct {
		name  string
		s     routing.OrgSettings
		field string // "" means valid
		msg   string
	}{
		{"zero value", routing.OrgSettings{}, "", ""},
		{"alpha 0", routing.OrgSettings{Alpha: ptr(0)}, "", ""},
		{"alpha 1 with lists", routing.OrgSettings{Alpha: ptr(1), Allow: []string{"gpt-5-mini", "claude-haiku-4-5"}, Deny: []string{"claude-sonnet-4-5"}}, "", ""},
		{"alpha above 1", routing.OrgSettings{Alpha: ptr(1.01)}, "alpha", "alpha: must be between 0 and 1"},
		{"alpha negative", routing.OrgSettings{Alpha: ptr(-0.1)}, "alpha", "alpha: must be between 0 and 1"},
		{"alpha NaN", routing.OrgSettings{Alpha: ptr(math.NaN())}, "alpha", "alpha: must be between 0 and 1"},
		{"unknown allow", routing.OrgSettings{Allow: []string{"gpt-5-mini", "claude-haiku-4-5", "gpt-9"}}, "allow[2]", `allow[2]: unknown model "gpt-9"`},
		{"empty deny", routing.OrgSettings{Deny: []string{""}}, "deny[0]", "deny[0]: is empty"},
		{"repeated allow", routing.OrgSettings{Allow: []string{"gpt-5-mini", "gpt-5-mini"}}, "allow[1]", `allow[1]: model "gpt-5-mini" is listed twice`},
		{"both lists", routing.OrgSettings{Allow: []string{"gpt-5-mini"}, Deny: []string{"claude-haiku-4-5", "gpt-5-mini"}}, "deny[1]", `deny[1]: model "gpt-5-mini" is both allowed and denied`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.s.Validate(known)
			if tc.field == "" {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			var fe *routing.FieldError
			if !errors.As(err, &fe) || !errors.Is(err, routing.ErrInvalidSettings) {
				t.Fatalf("Validate = %v, want a *FieldError wrapping ErrInvalidSettings", err)
			}
			if fe.Field != tc.field || fe.Error() != tc.msg || fe.Public() != tc.msg {
				t.Fatalf("field %q message %q, want %q %q", fe.Field, fe.Error(), tc.field, tc.msg)
			}
		})
	}
}

func TestOrgSettingsPolicy(t *testing.T) {
	s := routing.OrgSettings{Allow: []string{"a", "b"}, Deny: []string{"c"}}
	p := s.Policy()
	if len(p.Allow) != 2 || p.Allow[1] != "b" || len(p.Deny) != 1 || p.Deny[0] != "c" || p.UsableProviders != nil || p.Ceiling != 0 {
		t.Fatalf("Policy = %+v", p)
	}
}
