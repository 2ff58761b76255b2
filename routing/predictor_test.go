package routing

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// predictorFor gives b (of Dim 2) a ScorerPredictor with the given per-model
// embedding weights and biases; feature weights, the shared difficulty and
// the calibration are neutral (means 0, scales 1, a 1, b 0).
func predictorFor(b *Bundle, emb [][2]float32, bias []float32, dial []float64) {
	p := &Predictor{FeatureVersion: FeatureVersion, Shared: make([]float32, 2+QueryFeatureCount+1), QMin: 0, QMax: 1}
	for range QueryFeatureCount {
		p.Mean, p.Scale = append(p.Mean, 0), append(p.Scale, 1)
	}
	for m := range b.Models {
		w := make([]float32, 2+QueryFeatureCount+2)
		w[0], w[1], w[len(w)-1] = emb[m][0], emb[m][1], bias[m]
		p.Weights = append(p.Weights, w)
		p.CalA, p.CalB = append(p.CalA, 1), append(p.CalB, 0)
	}
	b.Scorer, b.Predictor, b.Dial = ScorerPredictor, p, dial
}

// TestScorePredictorHand: the query (0.8, 0.6) with zero features. Logits:
// A 2*0.8 = 1.6, B 0.5 + 0 = 0.5, C -1 -> p A 0.832018, B 0.622459, C
// 0.268941. Costs are the clusters' (TestScoreExpectedHand): A 9.716298, B
// 2.283702, C 1.141851. Lambda 0 picks A; lambda 0.05: A 0.346203, B
// 0.508274, C 0.211849 -> B; lambda 1 picks C.
func TestScorePredictorHand(t *testing.T) {
	b := handBundle(t)
	predictorFor(b, [][2]float32{{2, 0}, {0, 0}, {0, 0}}, []float32{0, 0.5, -1}, []float64{1, 0.05, 0})
	if err := b.Prepare(); err != nil {
		t.Fatal(err)
	}
	var zero [QueryFeatureCount]float64
	for _, tc := range []struct {
		alpha float64
		want  string
	}{{1, "A"}, {0.5, "B"}, {0, "C"}} {
		best, _, scores := scoreVec(b, []float32{0.8, 0.6}, &zero, tc.alpha, []int{0, 1, 2}, 4, 9)
		if b.Models[best] != tc.want {
			t.Errorf("alpha %v: chose %s, want %s (%+v)", tc.alpha, b.Models[best], tc.want, scores)
		}
		for i, want := range []float64{0.832018, 0.622459, 0.268941} {
			if math.Abs(scores[i].Quality-want) > 1e-6 {
				t.Errorf("model %s quality %v, want %v", scores[i].Model, scores[i].Quality, want)
			}
		}
	}
	// A feature moves the estimate: weight 1 on feature 7 ("contains ?")
	// with mean 0.5 and scale 0.5 adds (1-0.5)/0.5 = 1 to C's logit.
	b.Predictor.Weights[2][2+7] = 1
	b.Predictor.Mean[7], b.Predictor.Scale[7] = 0.5, 0.5
	q := zero
	q[7] = 1
	_, _, scores := scoreVec(b, []float32{0.8, 0.6}, &q, 1, []int{2}, 4, 9)
	if math.Abs(scores[0].Quality-0.5) > 1e-9 {
		t.Fatalf("C with the question feature: %v, want 0.5", scores[0].Quality)
	}
	// Blend shrinks each model's estimate toward the clusters' expected
	// quality: A half way, B all the way, C not at all.
	b.Predictor.Blend = []float64{0.5, 0, 1}
	if err := b.Prepare(); err != nil {
		t.Fatal(err)
	}
	_, _, clusters := scoreExpected(b, []float32{0.8, 0.6}, 1, []int{0, 1, 2}, 4, 9)
	_, _, scores = scoreVec(b, []float32{0.8, 0.6}, &q, 1, []int{0, 1, 2}, 4, 9)
	for i, want := range []float64{0.5*0.832018 + 0.5*clusters[0].Quality, clusters[1].Quality, 0.5} {
		if math.Abs(scores[i].Quality-want) > 1e-6 {
			t.Errorf("blended %s quality %v, want %v", scores[i].Model, scores[i].Quality, want)
		}
	}
}

func TestPredictorPrepare(t *testing.T) {
	for _, tc := range []struct {
		name   string
		break_ func(b *Bundle)
	}{
		{"no predictor", func(b *Bundle) { b.Predictor = nil }},
		{"feature version", func(b *Bundle) { b.Predictor.FeatureVersion = FeatureVersion + 1 }},
		{"weights short", func(b *Bundle) { b.Predictor.Weights[1] = b.Predictor.Weights[1][1:] }},
		{"a model missing", func(b *Bundle) { b.Predictor.Weights = b.Predictor.Weights[:2] }},
		{"shared short", func(b *Bundle) { b.Predictor.Shared = b.Predictor.Shared[1:] }},
		{"nan weight", func(b *Bundle) { b.Predictor.Weights[0][0] = float32(math.NaN()) }},
		{"zero scale", func(b *Bundle) { b.Predictor.Scale[3] = 0 }},
		{"calibration", func(b *Bundle) { b.Predictor.CalA[0] = math.Inf(1) }},
		{"quality range", func(b *Bundle) { b.Predictor.QMin = 2 }},
		{"blend short", func(b *Bundle) { b.Predictor.Blend = []float64{1, 1} }},
		{"blend above 1", func(b *Bundle) { b.Predictor.Blend = []float64{1, 1.5, 0} }},
		{"blend nan", func(b *Bundle) { b.Predictor.Blend = []float64{math.NaN(), 1, 0} }},
		{"no dial", func(b *Bundle) { b.Dial = nil }},
		{"predictor on another kind", func(b *Bundle) { b.Scorer = ScorerExpected }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := handBundle(t)
			predictorFor(b, [][2]float32{{1, 0}, {0, 1}, {0, 0}}, []float32{0, 0, 0}, []float64{1, 0})
			if err := b.Prepare(); err != nil {
				t.Fatalf("valid predictor refused: %v", err)
			}
			tc.break_(b)
			if err := b.Prepare(); !errors.Is(err, ErrBundle) {
				t.Fatalf("Prepare = %v, want ErrBundle", err)
			}
		})
	}
}

// TestPredictorDialMonotone: on random predictor bundles, queries and
// features, raising alpha never lowers the chosen model's expected quality
// nor its expected cost.
func TestPredictorDialMonotone(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		models := 2 + trial%11
		b := &Bundle{Format: BundleFormat, ID: "r", Embedder: EmbedderSpec{ID: "fake", Dim: 2, Fingerprint: "fp"}}
		var emb [][2]float32
		var bias []float32
		for m := range models {
			b.Models = append(b.Models, string(rune('a'+m)))
			b.Global = append(b.Global, ModelStats{Quality: 0.5, Cost: 0.01, N: 1})
			emb = append(emb, [2]float32{float32(rng.NormFloat64()), float32(rng.NormFloat64())})
			bias = append(bias, float32(rng.NormFloat64()))
		}
		for range 3 {
			c := Cluster{Centroid: []float32{rng.Float32(), rng.Float32()}, Size: 1}
			for range models {
				c.Stats = append(c.Stats, ModelStats{Quality: rng.Float64(), Cost: rng.Float64() / 10, N: 1})
			}
			b.Clusters = append(b.Clusters, c)
		}
		predictorFor(b, emb, bias, []float64{100, 30, 10, 3, 1, 0.3, 0})
		for m := range models {
			b.Predictor.Weights[m][2+trial%QueryFeatureCount] = float32(rng.NormFloat64())
		}
		if err := b.Prepare(); err != nil {
			t.Fatal(err)
		}
		eligible := make([]int, models)
		for i := range eligible {
			eligible[i] = i
		}
		vec := []float32{rng.Float32(), rng.Float32()}
		Normalise(vec)
		var feats [QueryFeatureCount]float64
		for j := range feats {
			feats[j] = rng.NormFloat64()
		}
		checkMonotone(t, trial, b, vec, &feats, eligible, 2)
	}
}

func TestQueryFeatures(t *testing.T) {
	var f [QueryFeatureCount]float64
	QueryFeatures("What is 12 + 30.5?\nShow `x`", TurnMain, &f)
	n := float64(len("What is 12 + 30.5?\nShow `x`"))
	want := map[int]float64{
		0: math.Log1p(n), 1: math.Log1p(7), 2: 5 / n, 3: 1 / n, 4: math.Log1p(2), 5: 2 / n, 6: math.Log1p(1),
		7: 1, 8: 1, 9: 2.0 / 11,
	}
	for i, w := range want {
		if math.Abs(f[i]-w) > 1e-12 {
			t.Errorf("feature %d = %v, want %v", i, f[i], w)
		}
	}
	for i := 10; i < QueryFeatureCount; i++ {
		if f[i] != 0 {
			t.Errorf("main turn: indicator %d = %v", i, f[i])
		}
	}
	QueryFeatures("def f(): return 1", TurnToolResult, &f)
	if f[10] != 1 || f[7] != 0 || f[8] != 0 || f[5] == 0 {
		t.Errorf("code tool-result turn: %v", f)
	}
	QueryFeatures("", TurnTitle, &f)
	for i, x := range f {
		if (i == 14) != (x == 1) || (i != 14 && x != 0) {
			t.Errorf("empty title turn: %v", f)
			break
		}
	}
}
