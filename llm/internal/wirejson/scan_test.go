package wirejson

import "testing"

// TestSkipValue checks where each kind of JSON value ends.
func TestSkipValue(t *testing.T) {
	tests := []struct {
		in   string
		want int // index just past the value at 0
	}{
		{`"a\"b" ,`, 6},
		{`"\\" `, 4},
		{`{"a":{"b":"}"}} ,`, 15},
		{`[1,[2],"]"] x`, 11},
		{`true,`, 4},
		{`null}`, 4},
		{`-1.5e3]`, 6},
		{"12\n", 2},
		{`7`, 1},
		{`[1,2`, 4}, // unterminated (never valid input): the end of the bytes
	}
	for _, tt := range tests {
		if got := skipValue([]byte(tt.in), 0); got != tt.want {
			t.Errorf("skipValue(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// TestSkipSpace checks that only JSON white space is skipped.
func TestSkipSpace(t *testing.T) {
	tests := []struct {
		in      string
		at, end int
	}{
		{" \t\r\n{", 0, 4},
		{"a ", 0, 0},
		{"a  ", 1, 3},
		{"\u00a0", 0, 0}, // a non-breaking space is not JSON white space
	}
	for _, tt := range tests {
		if got := skipSpace([]byte(tt.in), tt.at); got != tt.end {
			t.Errorf("skipSpace(%q, %d) = %d, want %d", tt.in, tt.at, got, tt.end)
		}
	}
}

// TestNeedsDecoding checks which quoted keys the scanner decodes.
func TestNeedsDecoding(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`"model"`, false},
		{`"mo\u0064el"`, true},
		{`"a\"b"`, true},
		{"\"caf\u00e9\"", true},
		{"\"\xff\"", true},
	}
	for _, tt := range tests {
		if got := needsDecoding([]byte(tt.in)); got != tt.want {
			t.Errorf("needsDecoding(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
