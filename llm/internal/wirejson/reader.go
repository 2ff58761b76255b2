package wirejson

import (
	"strconv"
	"unicode/utf8"
)

// Reader reads a JSON body of a known shape in one strict pass, for a
// codec's fast path. It validates everything it passes over (Skip validates
// values the caller does not want), and it gives up - every later call
// returns zero values and End reports false - on whatever it cannot prove
// encoding/json reads the same way: a key that is not plain lower-case
// ASCII (encoding/json matches keys case-insensitively), a string with
// invalid UTF-8 or a lone surrogate (encoding/json substitutes U+FFFD), a
// number that is not a plain integer in range, a value of the wrong kind,
// nesting deeper than maxReaderDepth. A caller whose End is false decodes
// the body again with encoding/json, which then gives the answer or the
// error.
type Reader struct {
	b      []byte
	i      int
	failed bool
	buf    []byte
}

const maxReaderDepth = 512

// NewReader returns a Reader at the start of b.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// Reset makes r a Reader at the start of b, as NewReader does, keeping the
// memory it decodes escaped strings in, for a caller that reads one body
// after another (a stream's chunks).
func (r *Reader) Reset(b []byte) { *r = Reader{b: b, buf: r.buf[:0]} }

// Fail marks the read as given up; the caller found a shape it does not
// handle (a duplicate member, say).
func (r *Reader) Fail() { r.failed = true }

// End reports whether the read succeeded and only white space follows.
func (r *Reader) End() bool {
	if r.failed {
		return false
	}
	r.i = skipSpace(r.b, r.i)
	return r.i == len(r.b)
}

// peek returns the next non-space byte, or 0 at the end.
func (r *Reader) peek() byte {
	r.i = skipSpace(r.b, r.i)
	if r.failed || r.i >= len(r.b) {
		return 0
	}
	return r.b[r.i]
}

// Null consumes a null literal if one comes next and reports whether it did.
func (r *Reader) Null() bool {
	if r.peek() != 'n' {
		return false
	}
	r.literal("null")
	return !r.failed
}

// IsString reports whether a string comes next.
func (r *Reader) IsString() bool { return r.peek() == '"' }

func (r *Reader) literal(word string) {
	if len(r.b)-r.i < len(word) || string(r.b[r.i:r.i+len(word)]) != word {
		r.failed = true
		return
	}
	r.i += len(word)
}

// Members reads an object, calling yield with each key; yield must read or
// Skip the member's value. A key that is not plain lower-case ASCII (no
// escape, upper-case letter or non-ASCII byte) fails the read, so that a
// caller comparing keys byte for byte matches what encoding/json matches.
// The value must be an object: null or anything else fails the read (the
// caller checks Null first where null is allowed).
func (r *Reader) Members(yield func(key []byte) bool) {
	if r.peek() != '{' {
		r.failed = true
		return
	}
	r.i++
	if r.peek() == '}' {
		r.i++
		return
	}
	for !r.failed {
		if r.peek() != '"' {
			r.failed = true
			return
		}
		start := r.i + 1
		j := start
		for ; j < len(r.b) && r.b[j] != '"'; j++ {
			if c := r.b[j]; c < 0x20 || c >= 0x80 || c == '\\' || ('A' <= c && c <= 'Z') {
				r.failed = true
				return
			}
		}
		if j >= len(r.b) {
			r.failed = true
			return
		}
		key := r.b[start:j]
		r.i = j + 1
		if r.peek() != ':' {
			r.failed = true
			return
		}
		r.i++
		if !yield(key) {
			r.failed = true // the value was not read
			return
		}
		switch r.peek() {
		case ',':
			r.i++
		case '}':
			r.i++
			return
		default:
			r.failed = true
		}
	}
}

// Elements reads an array, calling yield before each element, which yield
// must read or Skip. Anything but an array fails the read.
func (r *Reader) Elements(yield func() bool) {
	if r.peek() != '[' {
		r.failed = true
		return
	}
	r.i++
	if r.peek() == ']' {
		r.i++
		return
	}
	for !r.failed {
		if !yield() {
			r.failed = true // the element was not read
			return
		}
		switch r.peek() {
		case ',':
			r.i++
		case ']':
			r.i++
			return
		default:
			r.failed = true
		}
	}
}

// Int reads an integer; null reads as 0 (encoding/json leaves the field as
// it was). A fraction, an exponent, more than 18 digits or anything but a
// number fails the read.
func (r *Reader) Int() int64 {
	c := r.peek()
	if c == 'n' {
		r.literal("null")
		return 0
	}
	neg := false
	if c == '-' {
		neg = true
		r.i++
	}
	start := r.i
	var v int64
	for r.i < len(r.b) && '0' <= r.b[r.i] && r.b[r.i] <= '9' {
		v = v*10 + int64(r.b[r.i]-'0')
		r.i++
	}
	n := r.i - start
	if n == 0 || n > 18 || (n > 1 && r.b[start] == '0') {
		r.failed = true
		return 0
	}
	if r.i < len(r.b) && (r.b[r.i] == '.' || r.b[r.i] == 'e' || r.b[r.i] == 'E') {
		r.failed = true
		return 0
	}
	if neg {
		v = -v
	}
	return v
}

// Bool reads true or false; null reads as false (encoding/json leaves the
// field as it was). Anything else fails the read.
func (r *Reader) Bool() bool {
	switch r.peek() {
	case 't':
		r.literal("true")
		return !r.failed
	case 'f':
		r.literal("false")
	case 'n':
		r.literal("null")
	default:
		r.failed = true
	}
	return false
}

// Float reads a number as encoding/json reads it into a float64 (strconv
// parses its text); null reads as 0. A number out of float64's range or
// anything but a number fails the read.
func (r *Reader) Float() float64 {
	switch c := r.peek(); {
	case c == 'n':
		r.literal("null")
		return 0
	case c != '-' && (c < '0' || c > '9'):
		r.failed = true
		return 0
	}
	start := r.i
	r.skipNumber()
	if r.failed {
		return 0
	}
	v, err := strconv.ParseFloat(string(r.b[start:r.i]), 64)
	if err != nil {
		r.failed = true
		return 0
	}
	return v
}

// Raw validates one value of any kind and returns a copy of its bytes, as
// encoding/json fills a json.RawMessage (null included).
func (r *Reader) Raw() []byte {
	start := skipSpace(r.b, r.i)
	r.Skip()
	if r.failed {
		return nil
	}
	return append([]byte(nil), r.b[start:r.i]...)
}

// String reads a string; null reads as "" (encoding/json leaves the field
// as it was). Anything but a string fails the read.
func (r *Reader) String() string {
	switch r.peek() {
	case 'n':
		r.literal("null")
		return ""
	case '"':
	default:
		r.failed = true
		return ""
	}
	start := r.i + 1
	for j := start; j < len(r.b); j++ {
		switch c := r.b[j]; {
		case c == '"':
			r.i = j + 1
			return string(r.b[start:j])
		case c == '\\' || c >= 0x80:
			return r.slowString(start, j)
		case c < 0x20:
			r.failed = true
			return ""
		}
	}
	r.failed = true
	return ""
}

// StringPtr reads a string, or null as nil.
func (r *Reader) StringPtr() *string {
	if r.Null() {
		return nil
	}
	s := r.String()
	if r.failed {
		return nil
	}
	return &s
}

// SkipString validates and passes over a string or null without making
// the string, for a member whose value the caller does not need but whose
// kind encoding/json checks (anything else fails the read). Unlike String
// it takes invalid UTF-8, which encoding/json reads without an error.
func (r *Reader) SkipString() {
	switch r.peek() {
	case 'n':
		r.literal("null")
	case '"':
		r.skipString()
	default:
		r.failed = true
	}
}

// slowString decodes the string whose content starts at b[start]; b[j] is
// its first escape or non-ASCII byte.
func (r *Reader) slowString(start, j int) string {
	out := append(r.buf[:0], r.b[start:j]...)
	for j < len(r.b) {
		c := r.b[j]
		switch {
		case c == '"':
			r.i = j + 1
			r.buf = out
			return string(out)
		case c < 0x20:
			r.failed = true
			return ""
		case c >= 0x80:
			ru, size := utf8.DecodeRune(r.b[j:])
			if ru == utf8.RuneError && size == 1 {
				r.failed = true
				return ""
			}
			out = append(out, r.b[j:j+size]...)
			j += size
		case c != '\\':
			out = append(out, c)
			j++
		default:
			if j+1 >= len(r.b) {
				r.failed = true
				return ""
			}
			e := r.b[j+1]
			j += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				ru := hex4(r.b, j)
				j += 4
				if 0xDC00 <= ru && ru < 0xE000 {
					ru = -1 // a low surrogate first
				}
				if 0xD800 <= ru && ru < 0xDC00 {
					lo := rune(-1)
					if j+1 < len(r.b) && r.b[j] == '\\' && r.b[j+1] == 'u' {
						lo = hex4(r.b, j+2)
					}
					if lo < 0xDC00 || lo >= 0xE000 {
						ru = -1
					} else {
						ru = 0x10000 + (ru-0xD800)<<10 + (lo - 0xDC00)
						j += 6
					}
				}
				if ru < 0 {
					r.failed = true
					return ""
				}
				out = utf8.AppendRune(out, ru)
			default:
				r.failed = true
				return ""
			}
		}
	}
	r.failed = true
	return ""
}

// hex4 decodes the four hex digits at b[i:], or -1 when they are not.
func hex4(b []byte, i int) rune {
	if len(b)-i < 4 {
		return -1
	}
	var v rune
	for _, c := range b[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		v = v<<4 | rune(c)
	}
	return v
}

// Skip validates and passes over one value of any kind.
func (r *Reader) Skip() { r.skip(0) }

func (r *Reader) skip(depth int) {
	if depth > maxReaderDepth {
		r.failed = true
		return
	}
	switch c := r.peek(); {
	case c == '{':
		r.i++
		if r.peek() == '}' {
			r.i++
			return
		}
		for !r.failed {
			if r.peek() != '"' {
				r.failed = true
				return
			}
			r.skipString()
			if r.peek() != ':' {
				r.failed = true
				return
			}
			r.i++
			r.skip(depth + 1)
			switch r.peek() {
			case ',':
				r.i++
			case '}':
				r.i++
				return
			default:
				r.failed = true
			}
		}
	case c == '[':
		r.i++
		if r.peek() == ']' {
			r.i++
			return
		}
		for !r.failed {
			r.skip(depth + 1)
			switch r.peek() {
			case ',':
				r.i++
			case ']':
				r.i++
				return
			default:
				r.failed = true
			}
		}
	case c == '"':
		r.skipString()
	case c == 't':
		r.literal("true")
	case c == 'f':
		r.literal("false")
	case c == 'n':
		r.literal("null")
	case c == '-' || ('0' <= c && c <= '9'):
		r.skipNumber()
	default:
		r.failed = true
	}
}

// skipString validates the string at b[i] as encoding/json's scanner does:
// no control bytes, only the defined escapes; other bytes pass.
func (r *Reader) skipString() {
	for j := r.i + 1; j < len(r.b); j++ {
		switch c := r.b[j]; {
		case c == '"':
			r.i = j + 1
			return
		case c < 0x20:
			r.failed = true
			return
		case c == '\\':
			if j+1 >= len(r.b) {
				r.failed = true
				return
			}
			switch r.b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j++
			case 'u':
				if hex4(r.b, j+2) < 0 {
					r.failed = true
					return
				}
				j += 5
			default:
				r.failed = true
				return
			}
		}
	}
	r.failed = true
}

// skipNumber validates the JSON number at b[i].
func (r *Reader) skipNumber() {
	b, i := r.b, r.i
	digits := func() int {
		s := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		return i - s
	}
	if b[i] == '-' {
		i++
	}
	if i < len(b) && b[i] == '0' {
		i++
	} else if digits() == 0 {
		r.failed = true
		return
	}
	if i < len(b) && b[i] == '.' {
		i++
		if digits() == 0 {
			r.failed = true
			return
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			r.failed = true
			return
		}
	}
	r.i = i
}
