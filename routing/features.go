package routing

import (
	"math"
	"math/bits"
	"strings"
	"unicode"
	"unicode/utf8"
)

// QueryFeatureCount is the number of cheap difficulty features QueryFeatures
// writes (FeatureVersion 2).
const QueryFeatureCount = 21

// FeatureVersion is the version of QueryFeatures' layout; a predictor bundle
// records it and is refused by a binary that computes another layout.
// Version 2 added features 15-20 (answer options, negation, long words).
const FeatureVersion = 2

// turnFeatures are the turn types with their own indicator (main is all
// zeros), in feature order.
var turnFeatures = [...]TurnType{TurnToolResult, TurnSubAgent, TurnCompaction, TurnProbe, TurnTitle}

// QueryFeatures writes the cheap difficulty features of the text a router
// embeds, and of the turn's type, into f. They cost one pass over the text
// and no allocation:
//
//	0 ln(1+bytes)            5 code marks per byte ({}();[]`# and "def ", "func ", "return ")
//	1 ln(1+words)            6 ln(1+lines)
//	2 digits per byte        7 contains '?'
//	3 arithmetic operators   8 opens with a question word
//	  (+-*/=<>^%) per byte   9 upper-case letters per letter
//	4 ln(1+numbers)          10-14 turn is tool_result, sub_agent, compaction, probe, title
//
//	15 ln(1+answer options offered) (optionFeatures)
//	16 how alike the options' words are (mean pairwise Jaccard, 0 with < 2)
//	17 ln(1+mean words per option)
//	18 ln(1+words before the first option: the question's stem)
//	19 ln(1+negations) (not, no, never, none, nor, neither, without, except, cannot, n't)
//	20 words of 9 or more letters per word (a rare-vocabulary proxy)
//
// Training standardises them (Predictor.Mean, Scale); an empty text gives
// zeros but for the turn indicators.
func QueryFeatures(text string, turn TurnType, f *[QueryFeatureCount]float64) {
	*f = [QueryFeatureCount]float64{}
	var words, digits, ops, numbers, code, lines, letters, upper int
	inWord, inNumber, question := false, false, false
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		switch {
		case r >= '0' && r <= '9':
			digits++
			if !inNumber {
				numbers++
			}
		case strings.ContainsRune("+-*/=<>^%", r):
			ops++
		case strings.ContainsRune("{}();[]`#", r):
			code++
		case r == '?':
			question = true
		case r == '\n':
			lines++
		}
		inNumber = r >= '0' && r <= '9' || (inNumber && r == '.')
		isWord := unicode.IsLetter(r) || unicode.IsDigit(r)
		if isWord && !inWord {
			words++
		}
		inWord = isWord
		if unicode.IsLetter(r) {
			letters++
			if unicode.IsUpper(r) {
				upper++
			}
		}
		i += size
	}
	code += strings.Count(text, "def ") + strings.Count(text, "func ") + strings.Count(text, "return ")
	n := float64(max(len(text), 1))
	f[0] = math.Log1p(float64(len(text)))
	f[1] = math.Log1p(float64(words))
	f[2] = float64(digits) / n
	f[3] = float64(ops) / n
	f[4] = math.Log1p(float64(numbers))
	f[5] = float64(code) / n
	f[6] = math.Log1p(float64(lines))
	if question {
		f[7] = 1
	}
	if questionWord(text) {
		f[8] = 1
	}
	if letters > 0 {
		f[9] = float64(upper) / float64(letters)
	}
	for i, t := range turnFeatures {
		if turn == t {
			f[10+i] = 1
		}
	}
	optionFeatures(text, f)
}

// questionWords open a question (matched case-insensitively on the first word).
var questionWords = [...]string{"what", "why", "how", "which", "who", "when", "where", "is", "are", "can", "does", "do", "should"}

func questionWord(text string) bool {
	text = strings.TrimLeftFunc(text, unicode.IsSpace)
	end := strings.IndexFunc(text, func(r rune) bool { return !unicode.IsLetter(r) })
	if end < 0 {
		end = len(text)
	}
	first := text[:end]
	for _, w := range questionWords {
		if strings.EqualFold(first, w) {
			return true
		}
	}
	return false
}

// maxOptions bounds the answer options optionFeatures compares.
const maxOptions = 16

// wordBag is a 128-bit set of hashed lower-cased words, for an
// allocation-free Jaccard similarity.
type wordBag [2]uint64

func (b *wordBag) add(h uint64) { b[h>>6&1] |= 1 << (h & 63) }

func jaccard(a, b wordBag) float64 {
	inter := bits.OnesCount64(a[0]&b[0]) + bits.OnesCount64(a[1]&b[1])
	union := bits.OnesCount64(a[0]|b[0]) + bits.OnesCount64(a[1]|b[1])
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}

// optionFeatures writes features 15-20. An answer option is a line that
// opens with a label: one letter or digit, optionally in parentheses,
// followed by ')', '.' or ':' (or the closing parenthesis) and a space or the
// line's end ("A) text", "(b) text", "3. text"); a text offers options when
// two or more such lines follow one another (other lines may sit between
// them). The stem is the words before the first option line.
func optionFeatures(text string, f *[QueryFeatureCount]float64) {
	var bags [maxOptions]wordBag
	options, optionWords, stem, words, long, negations := 0, 0, 0, 0, 0, 0
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		body, isOption := optionLabel(line)
		var bag wordBag
		n := eachWord(body, func(w string, h uint64) {
			bag.add(h)
			if utf8.RuneCountInString(w) >= 9 {
				long++
			}
			if negation(w) {
				negations++
			}
		})
		words += n
		if isOption {
			if options < maxOptions {
				bags[options] = bag
			}
			options++
			optionWords += n
		} else if options == 0 {
			stem += n
		}
	}
	if options < 2 { // one labelled line is not a choice
		stem, options, optionWords = words, 0, 0
	}
	f[15] = math.Log1p(float64(options))
	if options >= 2 {
		k := min(options, maxOptions)
		var sum float64
		for i := 0; i < k; i++ {
			for j := i + 1; j < k; j++ {
				sum += jaccard(bags[i], bags[j])
			}
		}
		f[16] = sum / float64(k*(k-1)/2)
		f[17] = math.Log1p(float64(optionWords) / float64(options))
	}
	f[18] = math.Log1p(float64(stem))
	f[19] = math.Log1p(float64(negations))
	if words > 0 {
		f[20] = float64(long) / float64(words)
	}
}

// optionLabel reports whether line opens with an answer option's label, and
// returns the line after it (the whole line when it has none).
func optionLabel(line string) (string, bool) {
	s := strings.TrimLeft(line, " \t")
	paren := strings.HasPrefix(s, "(")
	if paren {
		s = s[1:]
	}
	if len(s) < 2 || !(s[0] >= 'A' && s[0] <= 'Z' || s[0] >= 'a' && s[0] <= 'z' || s[0] >= '0' && s[0] <= '9') {
		return line, false
	}
	c := s[1]
	if paren && c != ')' || !paren && c != ')' && c != '.' && c != ':' {
		return line, false
	}
	if len(s) > 2 && s[2] != ' ' && s[2] != '\t' {
		return line, false
	}
	return s[2:], true
}

// eachWord calls fn with every word of s (a run of letters, digits and
// apostrophes) lower-cased by an FNV-1a hash, and returns how many there
// were. The word itself is passed as it appears.
func eachWord(s string, fn func(w string, h uint64)) int {
	n, start := 0, -1
	var h uint64
	for i := 0; i <= len(s); {
		r, size := utf8.RuneError, 1
		if i < len(s) {
			r, size = rune(s[i]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(s[i:])
			}
		}
		if i < len(s) && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '’') {
			if start < 0 {
				start, h = i, 14695981039346656037
			}
			var lower [utf8.UTFMax]byte
			for _, b := range utf8.AppendRune(lower[:0], unicode.ToLower(r)) {
				h = (h ^ uint64(b)) * 1099511628211
			}
		} else if start >= 0 {
			fn(s[start:i], h)
			n++
			start = -1
		}
		i += size
	}
	return n
}

// negations are the words negation counts (matched case-insensitively).
var negations = [...]string{"not", "no", "never", "none", "nor", "neither", "nothing", "nobody", "without", "except", "cannot"}

func negation(w string) bool {
	if len(w) > 3 && (strings.HasSuffix(w, "n't") || strings.HasSuffix(w, "n’t") || strings.HasSuffix(w, "N'T")) {
		return true
	}
	for _, n := range negations {
		if strings.EqualFold(w, n) {
			return true
		}
	}
	return false
}
