package offline

import (
	"context"
	"fmt"
	"io"

	"github.com/heddle-gw/heddle/routing"
)

// Defaults of training and evaluation, chosen by cross-validation on the
// RouterBench training split only (see routing/testdata/README.md).
const (
	DefaultK         = 32
	DefaultRestarts  = 5
	DefaultShrinkage = 20.0
	// DefaultScorer is the scorer kind `heddle bundle train` and `eval` use
	// unless told otherwise: chosen per training set by cross-validation on
	// it (ResolveScorer); see routing/testdata/README.md.
	DefaultScorer = ScorerAuto
)

// EmbedderFactory returns the embedder to train with for a seed (lexical-v1
// hashes depend on it; a pretrained embedder may ignore it).
type EmbedderFactory func(ctx context.Context, seed uint64) (routing.Embedder, error)

// EvalRun configures EvalSeeds.
type EvalRun struct {
	// Train is the training configuration; its Seed is replaced by each of
	// Seeds in turn.
	Train TrainConfig
	// Router tunes the evaluated router (top-p, beta).
	Router routing.Config
	// Seeds to train and evaluate with; the summary averages over them.
	Seeds []uint64
	// SignalKs, when set, also measures the per-query signal of the first
	// seed's embedder on the training data for these neighbourhood sizes.
	SignalKs []int
}

// EvalResult is the outcome of EvalSeeds.
type EvalResult struct {
	// Selection is the cross-validation that chose the scorer kind (nil
	// when the run named one).
	Selection []CVResult
	Summary   *EvalSummary
	Curves    *CurveSummary
	Signal    []SignalRow
	SignalKs  []int
}

// EvalSeeds trains a bundle on train for every seed of run.Seeds, evaluates
// it on test and summarises the reports. A ScorerAuto run chooses the kind
// once, by cross-validation on train with the first seed. It blocks for the
// training.
func EvalSeeds(ctx context.Context, run EvalRun, train, test []Sample, newEmbedder EmbedderFactory) (*EvalResult, error) {
	if len(run.Seeds) == 0 {
		return nil, fmt.Errorf("%w: no seeds", routing.ErrUsage)
	}
	res := &EvalResult{SignalKs: run.SignalKs}
	if run.Train.Scorer == ScorerAuto {
		cfg := run.Train
		cfg.Seed, cfg.Router = run.Seeds[0], run.Router
		var err error
		if cfg, res.Selection, err = ResolveScorer(ctx, cfg, train, newEmbedder); err != nil {
			return nil, err
		}
		run.Train.Scorer, run.Train.Selection = cfg.Scorer, cfg.Selection
	}
	var reports []*EvalReport
	var curves []*CurveReport
	for _, seed := range run.Seeds {
		emb, err := newEmbedder(ctx, seed)
		if err != nil {
			return nil, err
		}
		cfg := run.Train
		cfg.Seed = seed
		cfg.Router = run.Router
		b, err := Train(ctx, cfg, train, emb)
		if err != nil {
			return nil, err
		}
		live, err := routing.BundleEmbedder(b, emb)
		if err != nil {
			return nil, err
		}
		rep, err := Evaluate(ctx, b, live, test, EvalConfig{Router: run.Router})
		if err != nil {
			return nil, err
		}
		if run.SignalKs != nil && res.Signal == nil { // the first seed's embedder (the signal hardly depends on it)
			if res.Signal, err = QuerySignal(ctx, live, b.Preambles, train, b.Models, run.SignalKs); err != nil {
				return nil, err
			}
		}
		cr, err := CurveOf(rep, test)
		if err != nil {
			return nil, err
		}
		reports, curves = append(reports, rep), append(curves, cr)
	}
	sum, err := Summarise(reports)
	if err != nil {
		return nil, err
	}
	res.Summary = sum
	if res.Curves, err = SummariseCurves(reports[0].Scorer, run.Seeds, len(test), curves); err != nil {
		return nil, err
	}
	return res, nil
}

// Write prints the summary table, its targets and, when measured, the
// per-query signal table.
func (r *EvalResult) Write(w io.Writer) error {
	if r.Selection != nil {
		if _, err := fmt.Fprintln(w, SelectionNote(r.Selection)+"\n"); err != nil {
			return err
		}
	}
	if err := r.Summary.Write(w); err != nil {
		return err
	}
	if err := r.Curves.WriteLine(w); err != nil {
		return err
	}
	if r.SignalKs != nil {
		return WriteSignal(w, r.Signal, r.SignalKs)
	}
	return nil
}

// SubsetModels keeps only models' scores and costs in every sample and drops
// the samples that lack any of them, for evaluating a router over a subset.
func SubsetModels(samples []Sample, models []string) ([]Sample, error) {
	if len(models) < 2 {
		return nil, fmt.Errorf("%w: a subset needs at least two models", routing.ErrUsage)
	}
	var out []Sample
next:
	for _, s := range samples {
		t := Sample{ID: s.ID, Prompt: s.Prompt, Task: s.Task, Quality: map[string]float64{}, Cost: map[string]float64{}}
		for _, m := range models {
			q, okq := s.Quality[m]
			c, okc := s.Cost[m]
			if !okq || !okc {
				continue next
			}
			t.Quality[m], t.Cost[m] = q, c
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no sample scores all of %v", routing.ErrData, models)
	}
	return out, nil
}
