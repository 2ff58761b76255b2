package offline

import (
	"context"
	"fmt"
	"github.com/heddle-gw/heddle/routing"
	"math"
	"slices"
)

// EvalConfig configures Evaluate.
type EvalConfig struct {
	// Alphas to sweep; nil means 0, 0.05, ..., 1.
	Alphas []float64
	Router routing.Config
}

// DefaultAlphas returns 0 to 1 in steps of 0.05.
func DefaultAlphas() []float64 {
	out := make([]float64, 21)
	for i := range out {
		out[i] = float64(i) / 20
	}
	return out
}

// Row kinds of an evaluation report.
const (
	RowStrongest = "strongest"
	RowCheapest  = "cheapest"
	RowOracle    = "oracle"
	RowRouted    = "routed"
)

// EvalRow is one line of the report: a baseline or the router at one alpha.
type EvalRow struct {
	Kind  string  `json:"kind"`
	Model string  `json:"model,omitempty"` // for the single-model rows
	Alpha float64 `json:"alpha"`           // for routed rows
	// Accuracy is the mean quality per query.
	Accuracy float64 `json:"accuracy"`
	// PerTask is the mean quality per query of each task.
	PerTask map[string]float64 `json:"per_task"`
	// Cost is the total cost of the test set in US dollars.
	Cost float64 `json:"cost"`
	// Choices counts how often each model was chosen.
	Choices map[string]int `json:"choices,omitempty"`
}

// EvalReport is the outcome of Evaluate.
type EvalReport struct {
	Samples int      `json:"samples"`
	Tasks   []string `json:"tasks"`
	// Strongest and Cheapest are picked from the bundle's training means, so
	// the test split plays no part in choosing them.
	Strongest string    `json:"strongest"`
	Cheapest  string    `json:"cheapest"`
	Rows      []EvalRow `json:"rows"`
	// Models are the bundle's models; Scorer its scorer kind.
	Models []string `json:"models"`
	Scorer string   `json:"scorer"`
	// TaskFrontier is the test split's TaskFrontier: the most any router that
	// sees only each query's task could reach for each cost.
	TaskFrontier []FrontierPoint `json:"task_frontier"`
}

// Evaluate routes every test sample at every alpha with all of the bundle's
// models eligible (those the sample scored) and reports accuracy and total cost
// beside the strongest and cheapest single models and the oracle (the best
// model per query, the cheaper on ties). emb must match the bundle.
func Evaluate(ctx context.Context, b *routing.Bundle, emb routing.Embedder, test []Sample, cfg EvalConfig) (*EvalReport, error) {
	if b == nil {
		return nil, routing.ErrNoBundle
	}
	if err := b.CheckEmbedder(emb); err != nil {
		return nil, err
	}
	if len(test) == 0 {
		return nil, fmt.Errorf("%w: no test samples", routing.ErrData)
	}
	alphas := cfg.Alphas
	if alphas == nil {
		alphas = DefaultAlphas()
	}
	r, err := routing.NewRouter(b, emb, cfg.Router)
	if err != nil {
		return nil, err
	}
	texts := queryTexts(b.Preambles, test, cfg.Router.MaxEmbedBytes)
	vecs, err := embedAll(ctx, emb, texts, nil)
	if err != nil {
		return nil, err
	}
	feats := featuresOf(texts, test)
	rep := &EvalReport{Samples: len(test), Tasks: tasksOf(test), TaskFrontier: TaskFrontier(test), Models: b.Models, Scorer: b.Scorer}
	if rep.Scorer == "" {
		rep.Scorer = routing.ScorerAvengersPro
	}
	rep.Strongest, rep.Cheapest = extremes(b)
	rep.Rows = append(rep.Rows,
		tally(test, RowStrongest, rep.Strongest, 0, func(Sample, int) string { return rep.Strongest }),
		tally(test, RowCheapest, rep.Cheapest, 0, func(Sample, int) string { return rep.Cheapest }),
		tally(test, RowOracle, "", 0, func(s Sample, _ int) string { return oracle(b, s) }))
	for _, a := range alphas {
		choose := func(s Sample, i int) string {
			eligible := make([]int, 0, len(b.Models))
			for mi, m := range b.Models {
				if _, ok := s.Quality[m]; ok {
					eligible = append(eligible, mi)
				}
			}
			if len(eligible) == 0 {
				return ""
			}
			return b.Models[r.ChooseVec(vecs[i], feats[i], a, eligible)]
		}
		rep.Rows = append(rep.Rows, tally(test, RowRouted, "", a, choose))
	}
	return rep, nil
}

func tally(test []Sample, kind, model string, alpha float64, choose func(Sample, int) string) EvalRow {
	row := EvalRow{Kind: kind, Model: model, Alpha: alpha, PerTask: map[string]float64{}, Choices: map[string]int{}}
	count := map[string]int{}
	for i, s := range test {
		m := choose(s, i)
		row.Choices[m]++
		q := s.Quality[m]
		row.Accuracy += q
		row.Cost += s.Cost[m]
		row.PerTask[s.Task] += q
		count[s.Task]++
	}
	row.Accuracy /= float64(len(test))
	for t, n := range count {
		row.PerTask[t] /= float64(n)
	}
	if kind != RowRouted {
		row.Choices = nil
	}
	return row
}

// extremes returns the model with the highest global quality (cheaper on
// ties) and the one with the lowest global cost.
func extremes(b *routing.Bundle) (strongest, cheapest string) {
	si, ci := 0, 0
	for i, g := range b.Global {
		s := b.Global[si]
		if g.Quality > s.Quality || (g.Quality == s.Quality && g.Cost < s.Cost) {
			si = i
		}
		if g.Cost < b.Global[ci].Cost {
			ci = i
		}
	}
	return b.Models[si], b.Models[ci]
}

// oracle returns the sample's best model among the bundle's, the cheaper on ties.
func oracle(b *routing.Bundle, s Sample) string {
	best, bq, bc := "", math.Inf(-1), math.Inf(1)
	for _, m := range b.Models {
		q, ok := s.Quality[m]
		if !ok {
			continue
		}
		c := s.Cost[m]
		if q > bq || (q == bq && c < bc) {
			best, bq, bc = m, q, c
		}
	}
	return best
}

func tasksOf(samples []Sample) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range samples {
		if !seen[s.Task] {
			seen[s.Task] = true
			out = append(out, s.Task)
		}
	}
	slices.Sort(out)
	return out
}
