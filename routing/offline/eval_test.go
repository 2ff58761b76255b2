package offline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/lexical"
	"testing"
)

// routerBenchDir is HEDDLE_ROUTERBENCH_DIR, or ../shared/data/routerbench
// relative to the repository root.
func routerBenchDir(t testing.TB) string {
	dir := os.Getenv("HEDDLE_ROUTERBENCH_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "data", "routerbench")
	}
	if _, err := os.Stat(filepath.Join(dir, "arc_challenge_train.csv")); err != nil {
		t.Fatalf("RouterBench data not found (set HEDDLE_ROUTERBENCH_DIR): %v", err)
	}
	return dir
}

// readRouterBench reads the three RouterBench tasks of split ("train" or
// "test") from dir, whole prompts (training learns the ARC and WinoGrande
// few-shot preambles and strips them, as the router does when it routes).
func readRouterBench(t testing.TB, dir, split string) []Sample {
	var all []Sample
	for _, name := range []string{"arc_challenge", "mbpp", "winograde"} {
		f, err := os.Open(filepath.Join(dir, name+"_"+split+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		s, err := ReadRouterBench(f, false)
		f.Close()
		if err != nil {
			t.Fatalf("%s %s: %v", name, split, err)
		}
		all = append(all, s...)
	}
	return all
}

// TestRouterBenchEval is what `heddle bundle eval` runs on RouterBench: train on the
// *_train.csv files, evaluate on *_test.csv, lexical-v1, seeds 1, 2, 3, for
// the Avengers-Pro, expected and per-query predictor kinds over all 11 models, and the
// predictor and expected kinds for the two two-model pairs of issue 15. The tables are printed
// with -v. (`heddle bundle eval` without --scorer chooses the kind by
// cross-validation on the training split; the predictor is run here by name
// so that its table is always shown.)
func TestRouterBenchEval(t *testing.T) {
	if testing.Short() {
		t.Skip("RouterBench evaluation takes about three minutes")
	}
	dir := routerBenchDir(t)
	train, test := readRouterBench(t, dir, "train"), readRouterBench(t, dir, "test")
	lexicalV1 := func(_ context.Context, seed uint64) (routing.Embedder, error) {
		return lexical.New(lexical.Params{Dim: lexical.DefaultDim, Seed: seed})
	}
	run := func(t *testing.T, scorer string, train, test []Sample, signal []int) (*EvalResult, string) {
		res, err := EvalSeeds(context.Background(), EvalRun{
			Train: TrainConfig{ID: "eval", K: DefaultK, Restarts: DefaultRestarts, Shrinkage: DefaultShrinkage, Scorer: scorer},
			Seeds: []uint64{1, 2, 3}, SignalKs: signal,
		}, train, test, lexicalV1)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := res.Write(&out); err != nil {
			t.Fatal(err)
		}
		t.Log("\n" + out.String())
		return res, out.String()
	}
	t.Run("avengers-pro", func(t *testing.T) {
		_, text := run(t, routing.ScorerAvengersPro, train, test, []int{5, 20})
		for _, want := range []string{
			"| gpt-4-1106-preview (strongest) |", "| mistralai/mistral-7b-chat (cheapest) |", "| Oracle |",
			"| Avengers-Pro α=0.00 |", "| Avengers-Pro α=0.50 |", "| Avengers-Pro α=1.00 |",
			"test queries: 945; seeds: 3",
			// Measured: α=0.15 reaches 90% of gpt-4's accuracy at about 6% of its cost.
			"target 90% of strongest accuracy (79.14) at <= 10% of its cost: MET",
			// The task-level frontier of the test split (hand-checked with an
			// independent script): no router without a per-query signal can match
			// gpt-4 at half its cost here.
			"ceiling of routing by task alone at <= 50% of its cost: 86.86",
			"ceiling of routing by task alone at <= 10% of its cost: 82.14",
			// The per-query signal lexical-v1 gives (why the 50% target is out
			// of reach): one row per task and model.
			"per-query signal on the training data",
			"| winogrande | gpt-4-1106-preview | 887 |",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("eval output lacks %q", want)
			}
		}
		if n := strings.Count(text, "| Avengers-Pro α="); n != 21 {
			t.Errorf("%d alpha rows, want 21", n)
		}
		if n := strings.Count(text, "\n| arc-challenge | ") + strings.Count(text, "\n| mbpp | ") + strings.Count(text, "\n| winogrande | "); n != 33 {
			t.Errorf("%d signal rows, want 3 tasks x 11 models", n)
		}
	})
	// Over all 11 models cross-validation on the training split prefers the
	// expected scorer (routing/testdata/README.md); it keeps the 90%-at-10%
	// target. The predictor's table is printed beside it (measured: 81.13 at
	// 10.6% of gpt-4's cost, just short of that target).
	for _, kind := range []string{routing.ScorerExpected, routing.ScorerPredictor} {
		t.Run(kind, func(t *testing.T) {
			res, text := run(t, kind, train, test, nil)
			if n := strings.Count(text, "| "+scorerLabel(kind)+" α="); n != 21 {
				t.Errorf("%d alpha rows, want 21", n)
			}
			met := strings.Contains(text, "target 90% of strongest accuracy (79.14) at <= 10% of its cost: MET")
			if kind == routing.ScorerExpected && !met {
				t.Error("the expected scorer misses 90% of gpt-4's accuracy at 10% of its cost")
			}
			if res.Curves.Router.MaxGap > 0.15 {
				t.Errorf("widest step between dial points %.3f of the cost share, want <= 0.15", res.Curves.Router.MaxGap)
			}
		})
	}
	// pair: the strong and the cheap model, then the kind --scorer auto chooses
	// for the pair (the repeated cross-validation on the training split, since
	// the predictor's blend toward the clusters: predictor on both pairs;
	// routing/testdata/README.md). Both kinds' tables are printed; the chosen
	// one must beat a random router (the expected scorer does not on the
	// mistral-7b pair: 0.499 against 0.500).
	for _, pair := range [][]string{
		{"gpt-4-1106-preview", "mistralai/mixtral-8x7b-chat", routing.ScorerPredictor},
		{"gpt-4-1106-preview", "mistralai/mistral-7b-chat", routing.ScorerPredictor},
	} {
		chosen := pair[2]
		pair := pair[:2]
		tr, err := SubsetModels(train, pair)
		if err != nil {
			t.Fatal(err)
		}
		te, err := SubsetModels(test, pair)
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range []string{routing.ScorerPredictor, routing.ScorerExpected} {
			t.Run(kind+" "+pair[1], func(t *testing.T) {
				res, _ := run(t, kind, tr, te, nil)
				c := res.Curves
				if c.XAxis != "strong_call_share" || c.Router.MaxGap > 0.15 {
					t.Errorf("x axis %s, widest step %.3f of the strong model's share, want <= 0.15", c.XAxis, c.Router.MaxGap)
				}
				if kind == chosen && c.Router.APGR <= c.Random.APGR {
					t.Errorf("APGR %.3f is no better than a random router's %.3f", c.Router.APGR, c.Random.APGR)
				}
			})
		}
	}
}
