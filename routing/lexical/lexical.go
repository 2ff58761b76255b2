package lexical

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"sync"
)

// ID is the embedder id recorded in bundles.
const ID = "lexical-v1"

// Version is the feature algorithm's version; it is part of the fingerprint,
// so a bundle trained with another version is refused.
const Version = 1

// DefaultDim is the dimension used when Params.Dim is zero.
const DefaultDim = 1024

// Params define a lexical-v1 embedder completely. They are stored in a bundle.
type Params struct {
	// Dim is the output dimension, even, at least 16. The first half holds
	// word unigrams and bigrams, the second half character 3-5-grams.
	Dim int `json:"dim"`
	// Seed perturbs every feature hash.
	Seed uint64 `json:"seed"`
	// IDF has one weight per dimension, learned by Fit; nil means all 1.
	IDF []float32 `json:"idf,omitempty"`
}

// Embedder is the lexical-v1 embedder. It is safe for concurrent use.
type Embedder struct {
	p    Params
	half int
	idf  []float32
	fp   string
	pool sync.Pool // *scratch
}

type scratch struct {
	norm   []byte
	counts []float32
}

// New returns the embedder Params define.
func New(p Params) (*Embedder, error) {
	if p.Dim == 0 {
		p.Dim = DefaultDim
	}
	if p.Dim < 16 || p.Dim%2 != 0 {
		return nil, fmt.Errorf("%w: dim %d must be even and at least 16", ErrParams, p.Dim)
	}
	idf := p.IDF
	if idf == nil {
		idf = make([]float32, p.Dim)
		for i := range idf {
			idf[i] = 1
		}
	}
	if len(idf) != p.Dim {
		return nil, fmt.Errorf("%w: idf has %d weights for dim %d", ErrParams, len(idf), p.Dim)
	}
	for i, w := range idf {
		if !(w >= 0) || math.IsInf(float64(w), 0) {
			return nil, fmt.Errorf("%w: idf[%d] = %v", ErrParams, i, w)
		}
	}
	e := &Embedder{p: p, half: p.Dim / 2, idf: idf}
	e.fp = fingerprint(p.Dim, p.Seed, idf)
	e.pool.New = func() any { return &scratch{counts: make([]float32, p.Dim)} }
	return e, nil
}

func fingerprint(dim int, seed uint64, idf []float32) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s|v%d|dim=%d|seed=%d|", ID, Version, dim, seed)
	var b [4]byte
	for _, w := range idf {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(w))
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// ID returns "lexical-v1".
func (e *Embedder) ID() string { return ID }

// Dim returns the output dimension.
func (e *Embedder) Dim() int { return e.p.Dim }

// Fingerprint covers the algorithm version, dimension, hashing seed and the
// IDF table, so two embedders with equal fingerprints embed identically.
func (e *Embedder) Fingerprint() string { return e.fp }

// InlineEmbed reports that Embed is bounded CPU work, safe to run on the
// caller's goroutine (routing.Inline).
func (e *Embedder) InlineEmbed() bool { return true }

// Params returns a copy of the embedder's definition (for storing in a bundle).
func (e *Embedder) Params() Params {
	p := e.p
	p.IDF = append([]float32(nil), e.idf...)
	return p
}

// Embed returns the L2-normalised embedding of text. Text with no features
// (empty or blank) embeds as the zero vector. It only fails when ctx is done.
func (e *Embedder) Embed(ctx context.Context, text string) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]float32, e.p.Dim)
	e.EmbedInto(out, text)
	return out, nil
}

// EmbedInto writes the embedding of text into out, which must have Dim
// elements. It allocates nothing in the steady state.
func (e *Embedder) EmbedInto(out []float32, text string) {
	s := e.pool.Get().(*scratch)
	s.norm = normalize(s.norm, text)
	counts := s.counts
	clear(counts)
	half := uint64(e.half)
	visit(s.norm, e.p.Seed,
		func(h uint64) { counts[bucket(h, half)]++ },
		func(h uint64) { counts[half+bucket(h, half)]++ })
	e.weigh(out[:e.half], counts[:e.half], e.idf[:e.half])
	e.weigh(out[e.half:], counts[e.half:], e.idf[e.half:])
	normalise(out)
	e.pool.Put(s)
}

// weigh writes sublinear TF times IDF for one half and normalises that half to
// unit length, so words and character n-grams weigh the same in the result.
func (e *Embedder) weigh(out, counts, idf []float32) {
	var sum float64
	for i, c := range counts {
		if c == 0 {
			out[i] = 0
			continue
		}
		v := sublinear(c) * idf[i]
		out[i] = v
		sum += float64(v) * float64(v)
	}
	if sum == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range out {
		out[i] *= inv
	}
}

// logTable[c] = 1 + ln(c) for small counts, which are nearly all of them.
var logTable = func() [64]float32 {
	var t [64]float32
	for c := 1; c < len(t); c++ {
		t[c] = 1 + float32(math.Log(float64(c)))
	}
	return t
}()

func sublinear(c float32) float32 {
	if c < float32(len(logTable)) {
		return logTable[int(c)]
	}
	return 1 + float32(math.Log(float64(c)))
}

func normalise(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
}

// Fit returns an embedder with the same dimension and seed whose IDF table is
// learned from texts: idf = ln((1+N)/(1+df)) + 1 per dimension, where df counts
// the texts with a feature in that dimension. The result depends only on the
// texts and their order-independent counts.
func (e *Embedder) Fit(texts []string) (*Embedder, error) {
	df := make([]int, e.p.Dim)
	seen := make([]bool, e.p.Dim)
	var norm []byte
	half := uint64(e.half)
	for _, t := range texts {
		clear(seen)
		norm = normalize(norm, t)
		visit(norm, e.p.Seed,
			func(h uint64) { seen[bucket(h, half)] = true },
			func(h uint64) { seen[half+bucket(h, half)] = true })
		for i, s := range seen {
			if s {
				df[i]++
			}
		}
	}
	n := float64(len(texts))
	idf := make([]float32, e.p.Dim)
	for i, d := range df {
		idf[i] = float32(math.Log((1+n)/(1+float64(d))) + 1)
	}
	return New(Params{Dim: e.p.Dim, Seed: e.p.Seed, IDF: idf})
}
