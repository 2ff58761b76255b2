package offline

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/lexical"
)

// hardEasySamples: two kinds of question with the same words. The strong
// model answers every question; the weak one fails the questions written in
// capitals (with probability 0.9) and answers the others (with probability
// 0.9). lexical-v1 folds case, so clusters cannot tell the kinds apart; the
// predictor's upper-case feature can.
func hardEasySamples(n int, seed uint64) []Sample {
	rng := rand.New(rand.NewPCG(seed, 7))
	topics := []string{"invoice", "schedule", "budget", "report"}
	var out []Sample
	for i := range n {
		hard := i%2 == 0
		prompt := fmt.Sprintf("Please check the %s for team %d", topics[i%len(topics)], rng.IntN(50))
		if hard {
			prompt = strings.ToUpper(prompt)
		}
		weak := 1.0
		if (rng.Float64() < 0.9) == hard {
			weak = 0
		}
		out = append(out, Sample{Prompt: prompt, Task: "t", Quality: map[string]float64{"strong": 1, "weak": weak},
			Cost: map[string]float64{"strong": 1e-2, "weak": 1e-3}})
	}
	return out
}

func lexicalFactory(_ context.Context, seed uint64) (routing.Embedder, error) {
	return lexical.New(lexical.Params{Dim: 256, Seed: seed})
}

// TestTrainPredictor: the predictor learns which questions the weak model
// fails, its probabilities are calibrated on fresh data (mean predicted
// within 0.08 of the observed rate per kind), the dial spreads the strong
// model's share sensibly (APGR), and training is deterministic for a seed.
func TestTrainPredictor(t *testing.T) {
	for _, bags := range []int{1, 5} {
		t.Run(fmt.Sprintf("bags %d", bags), func(t *testing.T) { testTrainPredictor(t, bags) })
	}
}

func testTrainPredictor(t *testing.T, bags int) {
	ctx := context.Background()
	train, test := hardEasySamples(400, 1), hardEasySamples(200, 2)
	cfg := TrainConfig{ID: "p", K: 2, Seed: 3, Restarts: 1, Scorer: routing.ScorerPredictor, Date: "2026-12-02", Predictor: PredictorConfig{Bags: bags}}
	emb, _ := lexicalFactory(ctx, 3)
	b, err := Train(ctx, cfg, train, emb)
	if err != nil {
		t.Fatal(err)
	}
	if b.Scorer != routing.ScorerPredictor || b.Predictor == nil || len(b.Dial) != DialKnots {
		t.Fatalf("bundle kind %q, predictor %v, dial %v", b.Scorer, b.Predictor != nil, b.Dial)
	}
	live, err := routing.BundleEmbedder(b, emb)
	if err != nil {
		t.Fatal(err)
	}
	weak, _ := b.ModelIndex("weak")
	var pred, got [2]float64
	var count [2]int
	for _, s := range test {
		v, _ := live.Embed(ctx, s.Prompt)
		var f [routing.QueryFeatureCount]float64
		routing.QueryFeatures(s.Prompt, s.Turn, &f)
		z := b.Predictor.Standardise(&f)
		d := b.Predictor.Difficulty(v, &z)
		k := 0
		if strings.ToUpper(s.Prompt) == s.Prompt {
			k = 1
		}
		pred[k] += b.Predictor.Quality(weak, v, &z, d)
		got[k] += s.Quality["weak"]
		count[k]++
	}
	for k := range pred {
		p, o := pred[k]/float64(count[k]), got[k]/float64(count[k])
		if math.Abs(p-o) > 0.08 {
			t.Errorf("kind %d: mean predicted %.3f, observed %.3f", k, p, o)
		}
	}
	if pred[0]/float64(count[0]) < 0.75 || pred[1]/float64(count[1]) > 0.25 {
		t.Errorf("the predictor did not separate easy %.3f from hard %.3f", pred[0]/float64(count[0]), pred[1]/float64(count[1]))
	}
	// The clusters cannot tell the kinds apart, so the held-out part keeps
	// the weak model's estimate on the predictor.
	if w := b.Predictor.Blend; len(w) != 2 || w[weak] < 0.8 {
		t.Errorf("blend weights %v, want the weak model's >= 0.8", w)
	}
	rep, err := Evaluate(ctx, b, live, test, EvalConfig{})
	if err != nil {
		t.Fatal(err)
	}
	curve, err := CurveOf(rep, test)
	if err != nil {
		t.Fatal(err)
	}
	// Sending the capitals first is the best a router can do here: PGR 0.9
	// at half the calls, area 0.5*0.45 + 0.5*0.95 = 0.70; random 0.5.
	if curve.Router.APGR < 0.65 {
		t.Errorf("APGR %.3f, want >= 0.65 (best 0.70, random 0.5)", curve.Router.APGR)
	}
	again, err := Train(ctx, cfg, train, emb)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := b.Bytes()
	second, _ := again.Bytes()
	if !bytes.Equal(first, second) {
		t.Fatal("two trainings with the same seed differ")
	}
	cfg.Seed = 4
	other, err := Train(ctx, cfg, train, emb)
	if err != nil {
		t.Fatal(err)
	}
	if third, _ := other.Bytes(); bytes.Equal(first, third) {
		t.Fatal("another seed trained the same bundle")
	}
	loaded, err := routing.LoadBundle(bytes.NewReader(first))
	if err != nil || loaded.Predictor == nil {
		t.Fatalf("the encoded predictor bundle does not load: %v", err)
	}
}

// TestCombineBags: the bagged predictor's one weight vector per model gives
// the mean of the bags' calibrated logits, difficulty term included.
func TestCombineBags(t *testing.T) {
	// Layout: two inputs, the difficulty column, the bias.
	fits := []bagFit{
		{shared: []float64{1, 2, 0, 3}, w: [][]float64{{0.5, 0, 2, 1}}, cal: [][2]float64{{2, 0.1}}},
		{shared: []float64{0, 1, 0, -1}, w: [][]float64{{1, 1, -0.5, 0}}, cal: [][2]float64{{1, -0.3}}},
	}
	p := &routing.Predictor{}
	combineBags(p, fits)
	if p.CalA[0] != 1 || p.CalB[0] != 0 || p.Weights[0][2] != 0 || len(p.Shared) != 3 {
		t.Fatalf("combined %+v", p)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for range 20 {
		x := []float32{float32(rng.NormFloat64()), float32(rng.NormFloat64()), 0, 1}
		var want float64
		for _, f := range fits {
			d := dot(f.shared, x)
			row := []float32{x[0], x[1], float32(d), 1}
			want += (f.cal[0][0]*dot(f.w[0], row) + f.cal[0][1]) / float64(len(fits))
		}
		if got := dot32(p.Weights[0], x); math.Abs(got-want) > 1e-5 {
			t.Fatalf("x %v: combined logit %v, the bags' mean %v", x, got, want)
		}
	}
}

// TestSelectScorer: on data whose signal only the features carry, the
// cross-validation prefers the predictor and records why; on data too
// small to cross-validate, ResolveScorer keeps the expected scorer and says
// so.
func TestSelectScorer(t *testing.T) {
	ctx := context.Background()
	cfg := TrainConfig{K: 2, Seed: 1, Restarts: 1, Scorer: ScorerAuto}
	got, results, err := ResolveScorer(ctx, cfg, hardEasySamples(300, 5), lexicalFactory)
	if err != nil {
		t.Fatal(err)
	}
	if got.Scorer != routing.ScorerPredictor || len(results) != len(Scorers) {
		t.Fatalf("chose %q from %+v", got.Scorer, results)
	}
	for _, r := range results {
		if len(r.APGR) != SelectionFolds*SelectionRepeats {
			t.Fatalf("%s: %d folds", r.Scorer, len(r.APGR))
		}
	}
	if !strings.HasPrefix(got.Selection, "scorer chosen by 3-fold cross-validation over 3 seeded splits of the training data (mean held-out APGR): predictor ") {
		t.Fatalf("selection note %q", got.Selection)
	}
	few, _, err := ResolveScorer(ctx, cfg, hardEasySamples(5, 5), lexicalFactory)
	if err != nil || few.Scorer != routing.ScorerExpected || !strings.Contains(few.Selection, "no cross-validation possible") {
		t.Fatalf("five samples: %q %q %v", few.Scorer, few.Selection, err)
	}
	named := cfg
	named.Scorer = routing.ScorerAvengersPro
	if same, res, err := ResolveScorer(ctx, named, nil, lexicalFactory); err != nil || same.Scorer != routing.ScorerAvengersPro || res != nil {
		t.Fatalf("a named scorer was not kept: %q %v %v", same.Scorer, res, err)
	}
}

// TestDialOffTheSwitchingPoint: two kinds of query, so the training spend
// jumps where the x kind (only A answers it) moves to A. Knots sit in the
// middle of a level, never on a jump: x goes to A high on the dial and to
// the cheap B low on it, while y (both answer it) stays on B in the middle
// of the dial, for both kinds with a dial.
func TestDialOffTheSwitchingPoint(t *testing.T) {
	var samples []Sample
	for i := range 40 {
		samples = append(samples, sample(fmt.Sprintf("x%d", i), 1, 0), sample(fmt.Sprintf("y%d", i), 1, 1))
	}
	for _, kind := range []string{routing.ScorerExpected, routing.ScorerPredictor} {
		b, err := Train(context.Background(), TrainConfig{K: 2, Seed: 1, Restarts: 1, Scorer: kind}, samples, mapEmbedder{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := routing.NewRouter(b, mapEmbedder{}, routing.Config{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			text  string
			alpha float64
			want  string
		}{{"x77", 0.7, "A"}, {"x77", 0.2, "B"}, {"y77", 0.6, "B"}} {
			d, err := r.Decide(context.Background(), routing.Query{Text: tc.text, Alpha: tc.alpha, Eligible: []string{"A", "B"}})
			if err != nil || d.Model != tc.want {
				t.Errorf("%s: %q at alpha %v chose %q (%v), want %s; dial %v", kind, tc.text, tc.alpha, d.Model, err, tc.want, b.Dial)
			}
		}
	}
}
