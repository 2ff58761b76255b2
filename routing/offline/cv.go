package offline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/heddle-gw/heddle/routing"
)

// Scorers are the bundle kinds model selection chooses between.
var Scorers = []string{routing.ScorerAvengersPro, routing.ScorerExpected, routing.ScorerPredictor}

// CVResult is one scorer kind's k-fold cross-validation: the APGR of each
// held-out fold (see CurveOf) and their mean and sample standard deviation.
type CVResult struct {
	Scorer string    `json:"scorer"`
	APGR   []float64 `json:"apgr"`
	Mean   float64   `json:"mean"`
	SD     float64   `json:"sd"`
}

// CrossValidate splits samples into folds parts by a permutation seeded with
// cfg.Seed, trains a bundle with cfg on all parts but one (the embedder from
// newEmbedder(cfg.Seed)) and measures the APGR of its dial sweep on the part
// left out, for every part. Only the given samples are used, so run it on
// training data alone. It blocks for folds trainings.
func CrossValidate(ctx context.Context, cfg TrainConfig, samples []Sample, newEmbedder EmbedderFactory, folds int) (CVResult, error) {
	if folds < 2 {
		return CVResult{}, fmt.Errorf("%w: %d folds", routing.ErrUsage, folds)
	}
	if len(samples) < 2*folds {
		return CVResult{}, fmt.Errorf("%w: %d samples are too few for %d folds", routing.ErrData, len(samples), folds)
	}
	res := CVResult{Scorer: cfg.Scorer}
	if res.Scorer == "" {
		res.Scorer = routing.ScorerAvengersPro
	}
	perm := rand.New(rand.NewPCG(cfg.Seed, 0xc0ffee)).Perm(len(samples))
	for f := range folds {
		var train, held []Sample
		for pos, i := range perm {
			if pos%folds == f {
				held = append(held, samples[i])
			} else {
				train = append(train, samples[i])
			}
		}
		emb, err := newEmbedder(ctx, cfg.Seed)
		if err != nil {
			return CVResult{}, err
		}
		b, err := Train(ctx, cfg, train, emb)
		if err != nil {
			return CVResult{}, fmt.Errorf("fold %d: %w", f, err)
		}
		live, err := routing.BundleEmbedder(b, emb)
		if err != nil {
			return CVResult{}, err
		}
		rep, err := Evaluate(ctx, b, live, held, EvalConfig{Router: cfg.Router})
		if err != nil {
			return CVResult{}, fmt.Errorf("fold %d: %w", f, err)
		}
		curve, err := CurveOf(rep, held)
		if err != nil {
			return CVResult{}, fmt.Errorf("fold %d: %w", f, err)
		}
		res.APGR = append(res.APGR, curve.Router.APGR)
	}
	res.Mean, res.SD = meanSD(res.APGR)
	return res, nil
}

// SelectScorer cross-validates every kind of kinds (Scorers when nil) with
// cfg, repeats times over differently seeded splits (seeds cfg.Seed,
// cfg.Seed+1, ...; at least once), and returns the kind of the highest mean
// APGR over all repeats' folds (the earlier kind unless a later one is ahead by more than selectionMargin) beside every
// kind's result (APGR holds repeats*folds values).
func SelectScorer(ctx context.Context, cfg TrainConfig, samples []Sample, newEmbedder EmbedderFactory, folds, repeats int, kinds []string) (string, []CVResult, error) {
	if kinds == nil {
		kinds = Scorers
	}
	var results []CVResult
	best := -1
	for _, k := range kinds {
		r := CVResult{Scorer: k}
		for rep := range max(repeats, 1) {
			c := cfg
			c.Scorer, c.Seed = k, cfg.Seed+uint64(rep)
			one, err := CrossValidate(ctx, c, samples, newEmbedder, folds)
			if err != nil {
				return "", nil, fmt.Errorf("%s: %w", k, err)
			}
			r.APGR = append(r.APGR, one.APGR...)
		}
		r.Mean, r.SD = meanSD(r.APGR)
		results = append(results, r)
		if best < 0 || r.Mean > results[best].Mean+selectionMargin {
			best = len(results) - 1
		}
	}
	if best < 0 {
		return "", nil, fmt.Errorf("%w: no scorer kinds", routing.ErrUsage)
	}
	return results[best].Scorer, results, nil
}

// ScorerAuto asks Train's callers to choose the scorer kind by
// cross-validation on the training data (ResolveScorer).
const ScorerAuto = "auto"

// selectionMargin is how far a later (more complex) kind of Scorers must be
// ahead of the best so far to be chosen: means that agree to a thousandth
// are a tie, and a tie goes to the simpler kind. On perfectly separable data
// the predictor and the expected scorer tie (0.750 each), and the
// predictor's dial then sits on knife edges between near-identical queries.
const selectionMargin = 1e-3

// SelectionFolds is the number of folds ResolveScorer cross-validates with,
// SelectionRepeats the number of differently seeded splits it repeats that
// over. One 3-fold split of the RouterBench training pairs moved a kind's
// mean APGR by up to 0.08 from one seed to the next (gpt-4 vs mixtral,
// predictor: 0.588, 0.565, 0.504 for seeds 1-3), more than the kinds differ,
// so one split chose by luck; see routing/testdata/README.md.
const (
	SelectionFolds   = 3
	SelectionRepeats = 3
)

// ResolveScorer returns cfg unchanged unless its scorer is ScorerAuto; then
// it cross-validates every kind of Scorers on samples (SelectionFolds folds,
// repeated over SelectionRepeats splits from cfg's seed on, the embedder
// from newEmbedder), sets the winner, and sets
// cfg.Selection (recorded in the bundle's TrainingMeta) to SelectionNote.
// When the data cannot
// be cross-validated (ErrData: too few samples, a fold without a gap between
// its strongest and cheapest model) the scorer is ScorerExpected, and
// Selection says why.
func ResolveScorer(ctx context.Context, cfg TrainConfig, samples []Sample, newEmbedder EmbedderFactory) (TrainConfig, []CVResult, error) {
	if cfg.Scorer != ScorerAuto {
		return cfg, nil, nil
	}
	kind, results, err := SelectScorer(ctx, cfg, samples, newEmbedder, SelectionFolds, SelectionRepeats, nil)
	if errors.Is(err, routing.ErrData) {
		// Too few samples, or a fold whose strongest model is not better
		// than its cheapest: the data cannot choose, so the bundle gets the
		// absolute-units cluster scorer and says why.
		cfg.Scorer, cfg.Selection = routing.ScorerExpected, "no cross-validation possible on this data ("+err.Error()+"): expected scorer"
		return cfg, nil, nil
	}
	if err != nil {
		return cfg, nil, err
	}
	cfg.Scorer = kind
	cfg.Selection = SelectionNote(results)
	return cfg, results, nil
}

// SelectionNote is the one-line record of a selection: each kind's mean
// held-out APGR, the winner first.
func SelectionNote(results []CVResult) string {
	sorted := slices.Clone(results)
	slices.SortStableFunc(sorted, func(a, b CVResult) int { return cmp.Compare(b.Mean, a.Mean) })
	var b strings.Builder
	fmt.Fprintf(&b, "scorer chosen by %d-fold cross-validation over %d seeded splits of the training data (mean held-out APGR):", SelectionFolds, SelectionRepeats)
	for i, r := range sorted {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, " %s %.3f ± %.3f", r.Scorer, r.Mean, r.SD)
	}
	return b.String()
}
