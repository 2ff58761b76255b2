package routing

import (
	"math"
	"testing"
)

// handBundle has two clusters on the axes of a 2-d space and three models:
//
//	cluster 0: quality A 0.9, B 0.7, C 0.5; cost A 10, B 2, C 1
//	cluster 1: quality A 0.6, B 0.8, C 0.4; cost A 8,  B 4, C 2
func handBundle(t *testing.T) *Bundle {
	t.Helper()
	b := &Bundle{
		Format: BundleFormat, ID: "hand", Revision: "1",
		Embedder: EmbedderSpec{ID: "fake", Dim: 2, Fingerprint: "fp"},
		Models:   []string{"A", "B", "C"},
		Global:   []ModelStats{{0.75, 9, 2}, {0.75, 3, 2}, {0.45, 1.5, 2}},
		Clusters: []Cluster{
			{Centroid: []float32{1, 0}, Size: 3, Stats: []ModelStats{{0.9, 10, 3}, {0.7, 2, 3}, {0.5, 1, 3}}},
			{Centroid: []float32{0, 1}, Size: 1, Stats: []ModelStats{{0.6, 8, 1}, {0.8, 4, 1}, {0.4, 2, 1}}},
		},
	}
	if err := b.Prepare(); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestScoreHandComputed(t *testing.T) {
	b := handBundle(t)
	// Query (0.8, 0.6): similarities 0.8 and 0.6; with beta 9 the weights are
	// 1/(1+e^-1.8) = 0.858149 and 0.141851.
	//
	// Normalised per cluster (min-max over A, B, C):
	//   cluster 0: q A 1, B 0.5, C 0;  c A 1, B 1/9, C 0
	//   cluster 1: q A 0.5, B 1, C 0;  c A 1, B 1/3, C 0
	// alpha 0.5: cluster 0 A 0.5, B 0.694444, C 0.5; cluster 1 A 0.25, B 0.833333, C 0.5
	//   total A 0.464537, B 0.714146, C 0.5  -> B
	// alpha 1: A 0.929075, B 0.570925, C 0 -> A
	// alpha 0: A 0, B 0.857366, C 1 -> C
	vec := []float32{0.8, 0.6}
	for _, tc := range []struct {
		alpha  float64
		winner string
		scores [3]float64
	}{
		{0.5, "B", [3]float64{0.464537, 0.714146, 0.5}},
		{1, "A", [3]float64{0.929075, 0.570925, 0}},
		{0, "C", [3]float64{0, 0.857366, 1}},
	} {
		best, clusters, scores := scoreVec(b, vec, nil, tc.alpha, []int{0, 1, 2}, 4, 9)
		if b.Models[best] != tc.winner {
			t.Errorf("alpha %v: winner %s, want %s", tc.alpha, b.Models[best], tc.winner)
		}
		if len(clusters) != 2 || clusters[0].Cluster != 0 || clusters[1].Cluster != 1 {
			t.Fatalf("clusters %+v", clusters)
		}
		if !near(clusters[0].Weight, 0.858149) || !near(clusters[1].Weight, 0.141851) ||
			!near(clusters[0].Similarity, 0.8) || !near(clusters[1].Similarity, 0.6) {
			t.Errorf("cluster weights %+v", clusters)
		}
		for i, want := range tc.scores {
			if scores[i].Model != b.Models[i] || !near(scores[i].Score, want) {
				t.Errorf("alpha %v: %s score %v, want %v", tc.alpha, scores[i].Model, scores[i].Score, want)
			}
		}
		// Weighted raw quality and cost of B: 0.858149*0.7 + 0.141851*0.8, 0.858149*2 + 0.141851*4.
		if !near(scores[1].Quality, 0.714185) || !near(scores[1].Cost, 2.283702) {
			t.Errorf("B raw %v %v", scores[1].Quality, scores[1].Cost)
		}
	}
}

func TestScoreTopPAndEligibleSubset(t *testing.T) {
	b := handBundle(t)
	// top-p 1: only cluster 0, weight 1. Over {A, C} at alpha 0.5:
	// A: 0.5*1 + 0.5*0 = 0.5; C: 0.5*0 + 0.5*1 = 0.5 -> tie -> cheaper C.
	best, clusters, scores := scoreVec(b, []float32{0.8, 0.6}, nil, 0.5, []int{0, 2}, 1, 9)
	if len(clusters) != 1 || clusters[0].Weight != 1 {
		t.Fatalf("clusters %+v", clusters)
	}
	if b.Models[best] != "C" || len(scores) != 2 || !near(scores[0].Score, 0.5) || !near(scores[1].Score, 0.5) {
		t.Fatalf("winner %s scores %+v, want C on a tie", b.Models[best], scores)
	}
}

func TestScoreConstantColumns(t *testing.T) {
	b := handBundle(t)
	b.Clusters[0].Stats = []ModelStats{{0.5, 3, 1}, {0.5, 3, 1}, {0.5, 3, 1}}
	// Quality and cost constant in cluster 0: q=1, c=0 for all, score 1 at any alpha.
	_, _, scores := scoreVec(b, []float32{1, 0}, nil, 0.3, []int{0, 1, 2}, 1, 9)
	for _, s := range scores {
		if !near(s.Score, 1) {
			t.Fatalf("constant column: %+v, want score 1", s)
		}
	}
	// All equal: the tie goes to the lowest model id (costs are equal too).
	if best, _, _ := scoreVec(b, []float32{1, 0}, nil, 0.3, []int{2, 1, 0}, 1, 9); b.Models[best] != "A" {
		t.Fatalf("tie winner %s, want A", b.Models[best])
	}
}

func TestScoreZeroVectorUsesClusterSizes(t *testing.T) {
	b := handBundle(t)
	_, clusters, _ := scoreVec(b, []float32{0, 0}, nil, 0.5, []int{0, 1, 2}, 1, 9)
	if len(clusters) != 2 || !near(clusters[0].Weight, 0.75) || !near(clusters[1].Weight, 0.25) {
		t.Fatalf("zero vector clusters %+v, want sizes 3:1", clusters)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-5 }
