package routing

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// QueryFeatureCount is the number of cheap difficulty features QueryFeatures
// writes (FeatureVersion 1).
const QueryFeatureCount = 15

// FeatureVersion is the version of QueryFeatures' layout; a predictor bundle
// records it and is refused by a binary that computes another layout.
const FeatureVersion = 1

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
