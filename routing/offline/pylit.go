package offline

import (
	"fmt"
	"github.com/heddle-gw/heddle/routing"
	"strconv"
	"strings"
	"unicode/utf8"
)

// parsePyStrList parses a Python list literal of string literals, as
// RouterBench stores prompts: ['...'] or ["..."], with \n, \t, \\, \', \",
// \xNN, \uNNNN and \UNNNNNNNN escapes.
func parsePyStrList(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, fmt.Errorf("%w: not a list literal", routing.ErrData)
	}
	s = s[1 : len(s)-1]
	var out []string
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		if s == "" {
			return out, nil
		}
		str, rest, err := parsePyStr(s)
		if err != nil {
			return nil, err
		}
		out = append(out, str)
		rest = strings.TrimLeft(rest, " \t\r\n")
		if rest == "" {
			return out, nil
		}
		if rest[0] != ',' {
			return nil, fmt.Errorf("%w: expected ',' in list literal", routing.ErrData)
		}
		s = rest[1:]
	}
}

// parsePyStr parses one quoted string literal at the start of s and returns it
// and the rest of s.
func parsePyStr(s string) (string, string, error) {
	if s == "" || (s[0] != '\'' && s[0] != '"') {
		return "", "", fmt.Errorf("%w: expected a string literal", routing.ErrData)
	}
	quote := s[0]
	var b strings.Builder
	i := 1
	for i < len(s) {
		c := s[i]
		switch {
		case c == quote:
			return b.String(), s[i+1:], nil
		case c != '\\':
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			break
		}
		e := s[i+1]
		i += 2
		switch e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '0':
			b.WriteByte(0)
		case '\\', '\'', '"':
			b.WriteByte(e)
		case '\n':
			// line continuation
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if i+n > len(s) {
				return "", "", fmt.Errorf("%w: short \\%c escape", routing.ErrData, e)
			}
			v, err := strconv.ParseUint(s[i:i+n], 16, 32)
			if err != nil || !utf8.ValidRune(rune(v)) {
				return "", "", fmt.Errorf("%w: bad \\%c escape", routing.ErrData, e)
			}
			b.WriteRune(rune(v))
			i += n
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return "", "", fmt.Errorf("%w: unterminated string literal", routing.ErrData)
}
