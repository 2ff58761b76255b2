package wirejson

import (
	"encoding/json"
	"testing"
)

// TestIsNull checks absent and null raw values against present ones.
func TestIsNull(t *testing.T) {
	tests := []struct {
		raw  json.RawMessage
		want bool
	}{
		{nil, true},
		{json.RawMessage(``), true},
		{json.RawMessage(" \n"), true},
		{json.RawMessage(`null`), true},
		{json.RawMessage(" null\t"), true},
		{json.RawMessage(`"null"`), false},
		{json.RawMessage(`nullx`), false},
		{json.RawMessage(`0`), false},
		{json.RawMessage(`{}`), false},
		{json.RawMessage(`[]`), false},
		{json.RawMessage(`false`), false},
	}
	for _, tt := range tests {
		if got := IsNull(tt.raw); got != tt.want {
			t.Errorf("IsNull(%q) = %v, want %v", tt.raw, got, tt.want)
		}
	}
}

// TestFirstByte checks that leading white space is skipped.
func TestFirstByte(t *testing.T) {
	tests := []struct {
		raw  string
		want byte
	}{
		{``, 0},
		{" \r\n\t", 0},
		{`{"a":1}`, '{'},
		{"\n [1]", '['},
		{` "s"`, '"'},
		{`-1`, '-'},
	}
	for _, tt := range tests {
		if got := FirstByte(json.RawMessage(tt.raw)); got != tt.want {
			t.Errorf("FirstByte(%q) = %q, want %q", tt.raw, got, tt.want)
		}
	}
}

// TestPaths checks the JSON path helpers.
func TestPaths(t *testing.T) {
	tests := []struct{ got, want string }{
		{Index("tools", 3), "tools[3]"},
		{Index("messages[1].content", 0), "messages[1].content[0]"},
		{Index("", 2), "[2]"},
		{joinPath("a", "b.c"), "a.b.c"},
		{joinPath("", "b"), "b"},
		{joinPath("a", ""), "a"},
		{joinPath("", ""), ""},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
