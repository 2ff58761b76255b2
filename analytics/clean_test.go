package analytics

import "testing"

func TestCleanText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"gpt-5-mini", "gpt-5-mini"},
		{"żółw ünïcode ✓", "żółw ünïcode ✓"},
		{"bad\xffbyte", "bad\uFFFDbyte"},
		{"nul\x00inside", "nulinside"},
		{"both\x00\xfe", "both\uFFFD"},
		{"long ascii prefix before a nul byte\x00", "long ascii prefix before a nul byte"},
	} {
		if got := CleanText(c.in); got != c.want {
			t.Errorf("CleanText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
