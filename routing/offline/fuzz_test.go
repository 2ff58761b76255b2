package offline

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParsePyStrList: the RouterBench prompt parser never panics, and what it
// accepts re-parses to the same strings when written back as a literal.
func FuzzParsePyStrList(f *testing.F) {
	for _, s := range []string{`['a']`, `["b\n", 'c']`, `['\x41\u00e9\U0001F600']`, `[`, `['unterminated`, `['\`, `[]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parsePyStrList(s)
		if err != nil {
			return
		}
		var b strings.Builder
		b.WriteByte('[')
		for i, str := range got {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('\'')
			for _, r := range str {
				switch r {
				case '\\', '\'':
					b.WriteByte('\\')
					b.WriteRune(r)
				case '\n':
					b.WriteString(`\n`)
				default:
					b.WriteRune(r)
				}
			}
			b.WriteByte('\'')
		}
		b.WriteByte(']')
		if !utf8.ValidString(s) {
			return
		}
		again, err := parsePyStrList(b.String())
		if err != nil || len(again) != len(got) {
			t.Fatalf("round trip of %q: %q, %v", got, again, err)
		}
	})
}
