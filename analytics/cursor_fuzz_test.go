package analytics

import (
	"errors"
	"testing"
)

// FuzzParseCursor: any string parses to a cursor or ErrInvalidCursor,
// never a negative time nor an empty event id, and a parsed cursor encodes
// back to one that parses to itself.
func FuzzParseCursor(f *testing.F) {
	for _, c := range []Cursor{{TimeMs: 1700000000000, EventID: "evt-1"}, CursorBefore(0), CursorBefore(1 << 62)} {
		f.Add(c.Encode())
	}
	f.Add("")
	f.Add("LTE6eA") // "-1:x"
	f.Add("OTIyMzM3MjAzNjg1NDc3NTgwODox")
	f.Fuzz(func(t *testing.T, s string) {
		c, ok, err := ParseCursor(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidCursor) || ok {
				t.Fatalf("%q: ok %v, err %v", s, ok, err)
			}
			return
		}
		if !ok {
			if s != "" {
				t.Fatalf("%q: neither a cursor nor an error", s)
			}
			return
		}
		if c.TimeMs < 0 || c.EventID == "" {
			t.Fatalf("%q parsed to %+v", s, c)
		}
		back, ok, err := ParseCursor(c.Encode())
		if err != nil || !ok || back != c {
			t.Fatalf("%+v encodes to %q, parsed back as %+v, %v, %v", c, c.Encode(), back, ok, err)
		}
	})
}
