package offline

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/routing"
)

// oneHotEmbedder embeds "cN" as the N-th unit vector of 4.
type oneHotEmbedder struct{}

func (oneHotEmbedder) ID() string          { return "onehot" }
func (oneHotEmbedder) Dim() int            { return 4 }
func (oneHotEmbedder) Fingerprint() string { return "onehot-v1" }
func (oneHotEmbedder) Embed(_ context.Context, text string) ([]float32, error) {
	v := make([]float32, 4)
	n, _ := strconv.Atoi(strings.TrimPrefix(text, "c"))
	v[n%4] = 1
	return v, nil
}

// TestDialSkipsSlivers: four training queries, one per cluster, whose
// switching points from the strong A (cost 1) to the cheap B (cost 0.1)
// are lambda 1/3, 2/3, 1 and 1.0001 (the last two near-identical queries).
// The spend level between those two is a sliver of lambda, a knife edge: a
// knot there would flip with a query's estimate a hair off the training
// ones, and move half the spend. No knot may sit in it (before the fix,
// knots 3-7 did); the other levels keep their knots.
func TestDialSkipsSlivers(t *testing.T) {
	gaps := []float64{0.3, 0.6, 0.9, 0.90009} // switching lambda = gap / 0.9
	b := &routing.Bundle{
		Format: routing.BundleFormat, ID: "sliver", Revision: "1",
		Embedder: routing.EmbedderSpec{ID: "onehot", Dim: 4, Fingerprint: "onehot-v1"},
		Models:   []string{"A", "B"},
		Global:   []routing.ModelStats{{Quality: 1, Cost: 1, N: 4}, {Quality: 0.4, Cost: 0.1, N: 4}},
		Scorer:   routing.ScorerExpected,
		Dial:     []float64{1, 0},
	}
	var vecs [][]float32
	for i, g := range gaps {
		c := routing.Cluster{Centroid: make([]float32, 4), Size: 1,
			Stats: []routing.ModelStats{{Quality: g, Cost: 1, N: 1}, {Quality: 0, Cost: 0.1, N: 1}}}
		c.Centroid[i] = 1
		b.Clusters = append(b.Clusters, c)
		v, _ := oneHotEmbedder{}.Embed(context.Background(), "c"+strconv.Itoa(i))
		vecs = append(vecs, v)
	}
	if err := placeDial(b, oneHotEmbedder{}, vecs, nil, routing.Config{TopP: 1}); err != nil {
		t.Fatal(err)
	}
	lo, hi := gaps[2]/0.9, gaps[3]/0.9
	levels := map[string]bool{}
	for j, l := range b.Dial {
		if l >= lo && l <= hi {
			t.Errorf("knot %d (lambda %v) sits on the sliver [%v, %v]; dial %v", j, l, lo, hi, b.Dial)
		}
		switch {
		case l < gaps[0]/0.9:
			levels["all A"] = true
		case l < gaps[1]/0.9:
			levels["one B"] = true
		case l < lo:
			levels["two B"] = true
		case l > hi:
			levels["all B"] = true
		}
	}
	if len(levels) != 4 {
		t.Errorf("dial %v reaches levels %v, want all four wide ones", b.Dial, levels)
	}
}
