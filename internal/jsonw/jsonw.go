// Package jsonw appends JSON values to a byte slice by hand, the way
// encoding/json (and slog's JSON handler) writes them, for hot paths that
// cannot afford reflection: the request log line, the analytics journal,
// the wire codecs' stream frames. Ring: kernel; it imports nothing of ours
// and performs no I/O.
package jsonw

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// AppendFloat appends f as encoding/json (and so slog) writes it; NaN
// and infinities, which JSON cannot hold, as null.
func AppendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' { // e-09 to e-9, as encoding/json
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// AppendString appends s quoted as slog's JSON handler does: control
// characters, quote and backslash escaped, invalid UTF-8 as U+FFFD, U+2028
// and U+2029 escaped, nothing else (no HTML escaping).
func AppendString(b []byte, s string) []byte { return appendString(b, s, false) }

// AppendMarshalString appends s quoted byte for byte as encoding/json
// writes it with HTML escaping off (json.Encoder.SetEscapeHTML(false), as
// the wire codecs marshal): AppendString's escaping, but for backspace and
// form feed, which encoding/json writes as \b and \f where slog writes
// \u0008 and \u000c.
func AppendMarshalString(b []byte, s string) []byte { return appendString(b, s, true) }

// appendString is AppendString, or AppendMarshalString when shortBF.
func appendString(b []byte, s string, shortBF bool) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = appendShort(b, c, 'b', shortBF)
			case '\f':
				b = appendShort(b, c, 'f', shortBF)
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendShort appends control byte c as \ and letter when short, as \u00XX
// otherwise.
func appendShort(b []byte, c, letter byte, short bool) []byte {
	if short {
		return append(b, '\\', letter)
	}
	return append(b, '\\', 'u', '0', '0', '0', "0123456789abcdef"[c])
}
