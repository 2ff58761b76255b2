package routing

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/heddle-gw/heddle/routing/lexical"
)

// slowPart is an Embedder without the Inline ability.
type slowPart struct{ Embedder }

func lexicalPart(t *testing.T, dim int, seed uint64) *lexical.Embedder {
	t.Helper()
	e, err := lexical.New(lexical.Params{Dim: dim, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestConcat(t *testing.T) {
	a, b := lexicalPart(t, 64, 1), lexicalPart(t, 32, 2)
	c, err := NewConcat([]Embedder{a, b}, []float64{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	if c.ID() != "lexical-v1+lexical-v1" || c.Dim() != 96 || !c.InlineEmbed() {
		t.Fatalf("id %q dim %d inline %v", c.ID(), c.Dim(), c.InlineEmbed())
	}
	ctx := context.Background()
	text := "How many moons does Jupiter have?"
	v, err := c.Embed(ctx, text)
	if err != nil {
		t.Fatal(err)
	}
	va, _ := a.Embed(ctx, text)
	vb, _ := b.Embed(ctx, text)
	// Both parts are unit vectors: part i is w_i/sqrt(1+4) times its own.
	for i, x := range va {
		if math.Abs(float64(v[i])-float64(x)/math.Sqrt(5)) > 1e-6 {
			t.Fatalf("lexical part %d: %v, want %v", i, v[i], float64(x)/math.Sqrt(5))
		}
	}
	for i, x := range vb {
		if math.Abs(float64(v[64+i])-2*float64(x)/math.Sqrt(5)) > 1e-6 {
			t.Fatalf("second part %d: %v, want %v", i, v[64+i], 2*float64(x)/math.Sqrt(5))
		}
	}
	// The non-inline path gives the same vector.
	slow, err := NewConcat([]Embedder{a, slowPart{b}}, []float64{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	if slow.InlineEmbed() {
		t.Error("a part without Inline leaves the concatenation inline")
	}
	sv, err := slow.Embed(ctx, text)
	if err != nil {
		t.Fatal(err)
	}
	for i := range v {
		if math.Abs(float64(v[i]-sv[i])) > 1e-6 {
			t.Fatalf("slow path dimension %d: %v, inline %v", i, sv[i], v[i])
		}
	}
	// The fingerprint covers the weights, the parts and their order.
	fps := map[string]bool{c.Fingerprint(): true}
	for _, alt := range []struct {
		parts []Embedder
		w     []float64
	}{
		{[]Embedder{a, b}, []float64{1, 1}},
		{[]Embedder{b, a}, []float64{2, 1}},
		{[]Embedder{a, lexicalPart(t, 32, 3)}, []float64{1, 2}},
	} {
		o, err := NewConcat(alt.parts, alt.w)
		if err != nil {
			t.Fatal(err)
		}
		if fps[o.Fingerprint()] {
			t.Errorf("weights %v: fingerprint %s repeats another combination's", alt.w, o.Fingerprint())
		}
		fps[o.Fingerprint()] = true
	}
	// Text with no features embeds as zero; a routed decision goes through
	// the pooled inline path.
	z, _ := c.Embed(ctx, "")
	for _, x := range z {
		if x != 0 {
			t.Fatalf("empty text: %v", z)
		}
	}
	vec, buf, err := embedPooled(ctx, c, text, 0)
	if err != nil || buf == nil {
		t.Fatalf("embedPooled: buf %v err %v", buf, err)
	}
	for i := range v {
		if vec[i] != v[i] {
			t.Fatalf("pooled dimension %d: %v, want %v", i, vec[i], v[i])
		}
	}
	releaseVec(buf)
}

func TestNewConcatRefuses(t *testing.T) {
	a := lexicalPart(t, 16, 1)
	for name, tc := range map[string]struct {
		parts []Embedder
		w     []float64
	}{
		"one part":       {[]Embedder{a}, []float64{1}},
		"weight missing": {[]Embedder{a, a}, []float64{1}},
		"zero weight":    {[]Embedder{a, a}, []float64{1, 0}},
		"NaN weight":     {[]Embedder{a, a}, []float64{math.NaN(), 1}},
		"nil part":       {[]Embedder{a, nil}, []float64{1, 1}},
	} {
		if _, err := NewConcat(tc.parts, tc.w); !errors.Is(err, ErrUsage) {
			t.Errorf("%s: err %v, want ErrUsage", name, err)
		}
	}
}
