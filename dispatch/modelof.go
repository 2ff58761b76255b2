package dispatch

import (
	"errors"
	"strconv"
)

var errNoModel = errors.New("dispatch: body has no top-level model string")

// wireModel returns the value of the top-level "model" string of a JSON object
// without decoding the rest of it. It is the built-in ModelOfFunc.
func wireModel(body []byte) (string, error) {
	s := scanner{b: body}
	s.ws()
	if !s.eat('{') {
		return "", errNoModel
	}
	for {
		s.ws()
		if s.eat('}') {
			return "", errNoModel
		}
		key, ok := s.str()
		if !ok {
			return "", errNoModel
		}
		s.ws()
		if !s.eat(':') {
			return "", errNoModel
		}
		s.ws()
		if key == "model" {
			v, ok := s.str()
			if !ok {
				return "", errNoModel
			}
			return v, nil
		}
		if !s.skip(0) {
			return "", errNoModel
		}
		s.ws()
		if !s.eat(',') {
			return "", errNoModel
		}
	}
}

type scanner struct {
	b []byte
	i int
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str reads a JSON string and returns it unquoted.
func (s *scanner) str() (string, bool) {
	start := s.i
	if !s.rawStr() {
		return "", false
	}
	raw := s.b[start:s.i]
	escaped := false
	for _, c := range raw[1 : len(raw)-1] {
		if c == '\\' {
			escaped = true
			break
		}
	}
	if !escaped {
		return string(raw[1 : len(raw)-1]), true
	}
	v, err := strconv.Unquote(string(raw))
	return v, err == nil
}

// rawStr skips a JSON string, s.i at its opening quote.
func (s *scanner) rawStr() bool {
	if !s.eat('"') {
		return false
	}
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '\\':
			s.i += 2
		case '"':
			s.i++
			return true
		default:
			s.i++
		}
	}
	return false
}

// skip skips one JSON value; depth guards against pathological nesting.
func (s *scanner) skip(depth int) bool {
	if depth > 512 || s.i >= len(s.b) {
		return false
	}
	switch s.b[s.i] {
	case '"':
		return s.rawStr()
	case '{', '[':
		open := s.b[s.i]
		closing := byte('}')
		if open == '[' {
			closing = ']'
		}
		s.i++
		s.ws()
		if s.eat(closing) {
			return true
		}
		for {
			s.ws()
			if open == '{' {
				if !s.rawStr() {
					return false
				}
				s.ws()
				if !s.eat(':') {
					return false
				}
				s.ws()
			}
			if !s.skip(depth + 1) {
				return false
			}
			s.ws()
			if s.eat(closing) {
				return true
			}
			if !s.eat(',') {
				return false
			}
		}
	default:
		start := s.i
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return s.i > start
			}
			s.i++
		}
		return s.i > start
	}
}
