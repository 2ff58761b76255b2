package routing

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ConcatVersion is the version of Concat's combination rule; it is part of
// the fingerprint.
const ConcatVersion = 1

// Concat is an Embedder that concatenates other embedders' vectors, each
// part scaled by its weight, and L2-normalises the result: for parts that are
// all non-zero, part i keeps the share w_i^2 / sum(w^2) of the vector's
// squared length. Its id joins the parts' ids with "+" ("lexical-v1+wordvec"),
// its fingerprint covers every part's id, dimension, fingerprint and weight,
// so a bundle trained with it is refused by any other combination. It is
// Inline (and has EmbedInto) when every part is.
type Concat struct {
	parts   []Embedder
	weights []float32
	dim     int
	id, fp  string
	inline  bool
}

var (
	_ Embedder = (*Concat)(nil)
	_ Inline   = (*Concat)(nil)
	_ Into     = (*Concat)(nil)
)

// NewConcat combines parts (at least two) with weights (one per part, each
// positive and finite).
func NewConcat(parts []Embedder, weights []float64) (*Concat, error) {
	if len(parts) < 2 || len(weights) != len(parts) {
		return nil, fmt.Errorf("%w: a concatenation needs two or more parts and one weight each (got %d parts, %d weights)", ErrUsage, len(parts), len(weights))
	}
	c := &Concat{parts: parts, weights: make([]float32, len(parts)), inline: true}
	ids := make([]string, len(parts))
	var fp strings.Builder
	fmt.Fprintf(&fp, "concat|v%d", ConcatVersion)
	for i, p := range parts {
		w := weights[i]
		if p == nil || !(w > 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("%w: concatenation part %d needs an embedder and a positive finite weight", ErrUsage, i)
		}
		if p.Dim() <= 0 {
			return nil, fmt.Errorf("%w: concatenation part %d (%s) has dimension %d", ErrUsage, i, p.ID(), p.Dim())
		}
		c.weights[i] = float32(w)
		c.dim += p.Dim()
		ids[i] = p.ID()
		fmt.Fprintf(&fp, "|%s/%d/%s/w=%s", p.ID(), p.Dim(), p.Fingerprint(), strconv.FormatFloat(w, 'g', -1, 64))
		in, ok := p.(Inline)
		_, into := p.(Into)
		c.inline = c.inline && ok && in.InlineEmbed() && into
	}
	c.id = strings.Join(ids, "+")
	sum := sha256.Sum256([]byte(fp.String()))
	c.fp = hex.EncodeToString(sum[:16])
	return c, nil
}

// ID returns the parts' ids joined with "+".
func (c *Concat) ID() string { return c.id }

// Dim returns the sum of the parts' dimensions.
func (c *Concat) Dim() int { return c.dim }

// Fingerprint covers every part's id, dimension, fingerprint and weight.
func (c *Concat) Fingerprint() string { return c.fp }

// InlineEmbed reports whether every part is Inline with EmbedInto.
func (c *Concat) InlineEmbed() bool { return c.inline }

// Embed returns the weighted, L2-normalised concatenation of the parts'
// embeddings of text. It fails when a part fails or returns a vector of the
// wrong length.
func (c *Concat) Embed(ctx context.Context, text string) ([]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]float32, c.dim)
	if c.inline {
		c.EmbedInto(out, text)
		return out, nil
	}
	off := 0
	for i, p := range c.parts {
		v, err := p.Embed(ctx, text)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.ID(), err)
		}
		if len(v) != p.Dim() {
			return nil, errors.New(p.ID() + ": got " + strconv.Itoa(len(v)) + " dimensions, want " + strconv.Itoa(p.Dim()))
		}
		copy(out[off:], v)
		scale(out[off:off+len(v)], c.weights[i])
		off += len(v)
	}
	normalise(out)
	return out, nil
}

// EmbedInto writes the embedding of text into out (Dim elements). Only an
// Inline Concat (InlineEmbed true) may be called this way.
func (c *Concat) EmbedInto(out []float32, text string) {
	off := 0
	for i, p := range c.parts {
		part := out[off : off+p.Dim()]
		p.(Into).EmbedInto(part, text)
		scale(part, c.weights[i])
		off += p.Dim()
	}
	normalise(out)
}

func scale(v []float32, w float32) {
	for i := range v {
		v[i] *= w
	}
}

// normalise scales v to unit L2 length (a zero vector stays zero).
func normalise(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}
