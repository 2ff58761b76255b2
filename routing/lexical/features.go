package lexical

import (
	"unicode"
	"unicode/utf8"
)

// FNV-1a constants and a splitmix64 finaliser: cheap, allocation-free hashing
// whose output depends only on the bytes and the seed.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// normalize writes the canonical form of text into dst and returns it: runes
// lower-cased, digits folded to '0', letters and digits kept in words, every
// other printable rune kept as a one-rune word (code punctuation carries
// signal), runs of space collapsed to one ' ', with a leading and trailing ' '.
// Ideographs (Han, kana, Hangul) become one-rune words too, so CJK text gets
// word features as well as character n-grams.
func normalize(dst []byte, text string) []byte {
	dst = append(dst[:0], ' ')
	for _, r := range text {
		switch {
		case r < utf8.RuneSelf:
			b := byte(r)
			switch {
			case b >= 'a' && b <= 'z', b == '_':
				dst = append(dst, b)
			case b >= 'A' && b <= 'Z':
				dst = append(dst, b+('a'-'A'))
			case b >= '0' && b <= '9':
				dst = append(dst, '0')
			case b <= ' ' || b == 0x7f:
				dst = space(dst)
			default:
				dst = space(dst)
				dst = append(dst, b, ' ')
			}
		case isIdeograph(r):
			dst = space(dst)
			dst = utf8.AppendRune(dst, r)
			dst = append(dst, ' ')
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			dst = utf8.AppendRune(dst, unicode.ToLower(r))
		case unicode.IsSpace(r) || !unicode.IsPrint(r):
			dst = space(dst)
		default:
			dst = space(dst)
			dst = utf8.AppendRune(dst, r)
			dst = append(dst, ' ')
		}
	}
	return space(dst)
}

// bucket maps a hash to [0, n) by multiply-shift (no division).
func bucket(h, n uint64) uint64 { return ((h >> 32) * n) >> 32 }

func space(dst []byte) []byte {
	if len(dst) > 0 && dst[len(dst)-1] == ' ' {
		return dst
	}
	return append(dst, ' ')
}

func isIdeograph(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

// visit calls word for every word feature (unigrams and bigrams) and char for
// every character n-gram (n = 3..5 bytes over the normalised text) of norm,
// passing each feature's 64-bit hash.
func visit(norm []byte, seed uint64, word, char func(h uint64)) {
	wordSeed := mix(seed ^ 0x9e3779b97f4a7c15)
	charSeed := mix(seed ^ 0xc2b2ae3d27d4eb4f)

	var prev uint64
	havePrev := false
	start := -1
	for i, b := range norm {
		if b != ' ' {
			if start < 0 {
				start = i
			}
			continue
		}
		if start < 0 {
			continue
		}
		h := uint64(fnvOffset) ^ wordSeed
		for _, c := range norm[start:i] {
			h ^= uint64(c)
			h *= fnvPrime
		}
		word(mix(h))
		if havePrev {
			word(mix(prev*0x9e3779b97f4a7c15 ^ h ^ 0x5bd1e995))
		}
		prev, havePrev = h, true
		start = -1
	}

	n := len(norm)
	for i := 0; i+3 <= n; i++ {
		h := uint64(fnvOffset) ^ charSeed
		for j := i; j < i+5 && j < n; j++ {
			h ^= uint64(norm[j])
			h *= fnvPrime
			if j-i >= 2 {
				char((h ^ uint64(j-i)) * 0x9e3779b97f4a7c15)
			}
		}
	}
}
