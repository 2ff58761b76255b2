package routing

import (
	"errors"
	"math/rand/v2"
	"testing"
)

func TestCheckDial(t *testing.T) {
	for _, tc := range []struct {
		name string
		kind string
		dial []float64
		ok   bool
	}{
		{"avengers without dial", "", nil, true},
		{"avengers named", ScorerAvengersPro, nil, true},
		{"avengers with dial", ScorerAvengersPro, []float64{1, 0}, false},
		{"expected", ScorerExpected, []float64{5, 2, 0}, true},
		{"expected flat", ScorerExpected, []float64{0, 0}, true},
		{"expected without dial", ScorerExpected, nil, false},
		{"expected rising", ScorerExpected, []float64{1, 2, 0}, false},
		{"expected not ending at 0", ScorerExpected, []float64{2, 1}, false},
		{"expected negative", ScorerExpected, []float64{1, -1, 0}, false},
		{"unknown kind", "magic", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := handBundle(t)
			b.Scorer, b.Dial = tc.kind, tc.dial
			err := b.Prepare()
			if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrBundle)) {
				t.Fatalf("Prepare = %v, want ok %v (ErrBundle otherwise)", err, tc.ok)
			}
		})
	}
}

func TestLambda(t *testing.T) {
	dial := []float64{8, 4, 0}
	for _, tc := range []struct{ alpha, want float64 }{{0, 8}, {0.25, 6}, {0.5, 4}, {0.75, 2}, {1, 0}, {-1, 8}, {2, 0}} {
		if got := Lambda(dial, tc.alpha); got != tc.want {
			t.Errorf("Lambda(%v) = %v, want %v", tc.alpha, got, tc.want)
		}
	}
}

// TestScoreExpectedHand: with weights 0.858149 and 0.141851 (see
// TestScoreHandComputed) the expected quality is A 0.857445, B 0.714185,
// C 0.485815 and the cost A 9.716298, B 2.283702, C 1.141851. Lambda 0 picks
// A; lambda 0.03 gives A 0.565956, B 0.645674, C 0.451559 -> B; lambda 1
// picks C.
func TestScoreExpectedHand(t *testing.T) {
	b := handBundle(t)
	b.Scorer, b.Dial = ScorerExpected, []float64{1, 0.03, 0}
	if err := b.Prepare(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		alpha float64
		want  string
		score float64
	}{{1, "A", 0.857445}, {0.5, "B", 0.645674}, {0, "C", 0.485815 - 1.141851}} {
		best, _, scores := scoreVec(b, []float32{0.8, 0.6}, nil, tc.alpha, []int{0, 1, 2}, 2, 9)
		if b.Models[best] != tc.want {
			t.Errorf("alpha %v: %s, want %s (%+v)", tc.alpha, b.Models[best], tc.want, scores)
		}
		if s := scores[best]; !near(s.Score, tc.score) {
			t.Errorf("alpha %v: score %v, want %v", tc.alpha, s.Score, tc.score)
		}
	}
}

// TestExpectedDialMonotone: on random bundles and queries, raising alpha
// never lowers the chosen model's expected quality nor its expected cost.
func TestExpectedDialMonotone(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		models := 2 + trial%11
		b := &Bundle{Format: BundleFormat, ID: "r", Embedder: EmbedderSpec{ID: "fake", Dim: 3, Fingerprint: "fp"},
			Scorer: ScorerExpected, Dial: []float64{100, 30, 10, 3, 1, 0.3, 0}}
		for m := range models {
			b.Models = append(b.Models, string(rune('a'+m)))
			b.Global = append(b.Global, ModelStats{Quality: 0.5, Cost: 0.01, N: 1})
		}
		for range 4 {
			c := Cluster{Centroid: []float32{rng.Float32(), rng.Float32(), rng.Float32()}, Size: 1}
			for range models {
				c.Stats = append(c.Stats, ModelStats{Quality: rng.Float64(), Cost: rng.Float64() / 10, N: 1})
			}
			b.Clusters = append(b.Clusters, c)
		}
		if err := b.Prepare(); err != nil {
			t.Fatal(err)
		}
		eligible := make([]int, models)
		for i := range eligible {
			eligible[i] = i
		}
		vec := []float32{rng.Float32(), rng.Float32(), rng.Float32()}
		Normalise(vec)
		checkMonotone(t, trial, b, vec, nil, eligible, 3)
	}
}

// checkMonotone sweeps alpha from 0 to 1 in 40 steps and fails when the
// chosen model's expected quality or cost ever falls.
func checkMonotone(t *testing.T, trial int, b *Bundle, vec []float32, feats *[QueryFeatureCount]float64, eligible []int, topP int) {
	t.Helper()
	lastQ, lastC := -1.0, -1.0
	for a := 0; a <= 40; a++ {
		best, _, scores := scoreVec(b, vec, feats, float64(a)/40, eligible, topP, 9)
		var s ModelScore
		for _, x := range scores {
			if x.Model == b.Models[best] {
				s = x
			}
		}
		if s.Quality < lastQ-1e-12 || s.Cost < lastC-1e-12 {
			t.Fatalf("trial %d alpha %v: quality %v cost %v after %v %v", trial, float64(a)/40, s.Quality, s.Cost, lastQ, lastC)
		}
		lastQ, lastC = s.Quality, s.Cost
	}
}
