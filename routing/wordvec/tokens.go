package wordvec

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// Tokens splits text the way GloVe's vocabulary was built (lower-cased
// Penn-Treebank-style tokens) and calls emit with each token; emit reports
// whether it knew the token. The token bytes are only valid during the call.
//
//   - words: runs of letters, digits and marks, lower-cased; '.' or ','
//     between digits stays inside a number ("3.14", "1,000"); '-' between
//     word characters joins a hyphenated word, which is emitted whole, or,
//     when emit does not know it, as its parts;
//   - a clitic after an apostrophe is its own token: "it's" is "it" "'s",
//     "don't" is "do" "n't";
//   - every other non-space character is a one-character token ("(", "$").
//
// buf is scratch space, returned for reuse.
func Tokens(buf []byte, text string, emit func(tok []byte) bool) []byte {
	for i := 0; i < len(text); {
		r, size := next(text, i)
		switch {
		case unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError:
			i += size
		case wordRune(r):
			buf = buf[:0]
			var hyphen bool
			i, buf, hyphen = scanWord(text, i, buf)
			word := len(buf)
			if j, ok := clitic(text, i); ok {
				buf = append(buf, '\'')
				for i < j {
					r, size := next(text, i)
					i += size
					if r != '\'' && r != '’' {
						buf = utf8.AppendRune(buf, unicode.ToLower(r))
					}
				}
				w, c := buf[:word], buf[word:]
				if bytes.Equal(c, []byte("'t")) && len(w) > 1 && w[len(w)-1] == 'n' {
					emitWord(w[:len(w)-1], hyphen, emit)
					emit([]byte("n't"))
					continue
				}
				emitWord(w, hyphen, emit)
				emit(c)
				continue
			}
			emitWord(buf, hyphen, emit)
		default:
			buf = utf8.AppendRune(buf[:0], unicode.ToLower(r))
			emit(buf)
			i += size
		}
	}
	return buf
}

func next(text string, i int) (rune, int) {
	if c := text[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(text[i:])
}

func wordRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r))
}

func digit(r rune) bool { return r >= '0' && r <= '9' }

// scanWord appends the lower-cased word starting at i to buf and returns
// the index after it and whether it holds a hyphen.
func scanWord(text string, i int, buf []byte) (int, []byte, bool) {
	hyphen := false
	var prev rune
	for i < len(text) {
		r, size := next(text, i)
		if wordRune(r) {
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
			prev = r
			i += size
			continue
		}
		if i+size < len(text) {
			nr, _ := next(text, i+size)
			if (r == '.' || r == ',') && digit(prev) && digit(nr) || r == '-' && wordRune(prev) && wordRune(nr) {
				hyphen = hyphen || r == '-'
				buf = append(buf, byte(r))
				prev = r
				i += size
				continue
			}
		}
		break
	}
	return i, buf, hyphen
}

// clitic reports whether an apostrophe and letters follow at i, and where
// they end.
func clitic(text string, i int) (int, bool) {
	if i >= len(text) {
		return i, false
	}
	r, size := next(text, i)
	if r != '\'' && r != '’' {
		return i, false
	}
	j := i + size
	for j < len(text) {
		r, size := next(text, j)
		if !unicode.IsLetter(r) {
			break
		}
		j += size
	}
	return j, j > i+size && j-(i+size) <= 3
}

func emitWord(w []byte, hyphen bool, emit func([]byte) bool) {
	if emit(w) || !hyphen {
		return
	}
	for len(w) > 0 {
		part, rest, _ := bytes.Cut(w, []byte("-"))
		if len(part) > 0 {
			emit(part)
		}
		w = rest
	}
}
