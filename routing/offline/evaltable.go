package offline

import (
	"fmt"
	"github.com/heddle-gw/heddle/routing"
	"io"
	"math"
	"strings"
)

// EvalSummaryRow is one row of a multi-seed table: means and standard deviations
// over the seeds' reports.
type EvalSummaryRow struct {
	Label           string
	Kind            string
	Alpha           float64
	Accuracy, AccSD float64
	PerTask         map[string]float64
	Cost, CostSD    float64
}

// EvalSummary aggregates reports of the same test set trained with different
// seeds. Rows keep the order of the first report.
type EvalSummary struct {
	Samples   int
	Tasks     []string
	Strongest string
	Cheapest  string
	Seeds     int
	Rows      []EvalSummaryRow
	// TaskFrontier is the test split's (the same in every report).
	TaskFrontier []FrontierPoint
}

// Summarise averages reports row by row; they must share tasks and row layout.
func Summarise(reports []*EvalReport) (*EvalSummary, error) {
	if len(reports) == 0 {
		return nil, fmt.Errorf("%w: no reports", routing.ErrData)
	}
	first := reports[0]
	s := &EvalSummary{Samples: first.Samples, Tasks: first.Tasks, Strongest: first.Strongest, Cheapest: first.Cheapest, Seeds: len(reports),
		TaskFrontier: first.TaskFrontier}
	for i, r0 := range first.Rows {
		row := EvalSummaryRow{Kind: r0.Kind, Alpha: r0.Alpha, PerTask: map[string]float64{}}
		var accs, costs []float64
		for _, r := range reports {
			if len(r.Rows) != len(first.Rows) || r.Rows[i].Kind != r0.Kind || r.Rows[i].Alpha != r0.Alpha {
				return nil, fmt.Errorf("%w: reports have different layouts", routing.ErrData)
			}
			accs = append(accs, r.Rows[i].Accuracy)
			costs = append(costs, r.Rows[i].Cost)
			for t, v := range r.Rows[i].PerTask {
				row.PerTask[t] += v / float64(len(reports))
			}
		}
		row.Accuracy, row.AccSD = meanSD(accs)
		row.Cost, row.CostSD = meanSD(costs)
		switch r0.Kind {
		case RowStrongest, RowCheapest:
			row.Label = r0.Model + " (" + r0.Kind + ")"
		case RowOracle:
			row.Label = "Oracle"
		case RowRouted:
			row.Label = fmt.Sprintf("%s α=%.2f", scorerLabel(first.Scorer), r0.Alpha)
		}
		s.Rows = append(s.Rows, row)
	}
	return s, nil
}

func meanSD(v []float64) (float64, float64) {
	var m float64
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	var ss float64
	for _, x := range v {
		ss += (x - m) * (x - m)
	}
	if len(v) < 2 {
		return m, 0
	}
	return m, math.Sqrt(ss / float64(len(v)-1))
}

// Write prints the table in the layout of the Avengers-Pro paper's Table 1:
// one column per task, the average accuracy over all queries, the total cost
// and the cost relative to the strongest single model; then the two targets.
func (s *EvalSummary) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "test queries: %d; seeds: %d (routed rows: mean over seeds, ± sample sd)\n\n", s.Samples, s.Seeds)
	b.WriteString("| Setting |")
	for _, t := range s.Tasks {
		fmt.Fprintf(&b, " %s |", t)
	}
	b.WriteString(" Avg acc (%) | Cost ($) | Cost vs strongest |\n|---|")
	for range s.Tasks {
		b.WriteString("---:|")
	}
	b.WriteString("---:|---:|---:|\n")
	ref := s.strongest()
	for _, r := range s.Rows {
		fmt.Fprintf(&b, "| %s |", r.Label)
		for _, t := range s.Tasks {
			fmt.Fprintf(&b, " %.2f |", 100*r.PerTask[t])
		}
		acc := fmt.Sprintf("%.2f", 100*r.Accuracy)
		cost := fmt.Sprintf("%.4f", r.Cost)
		if s.Seeds > 1 && r.Kind == RowRouted {
			acc += fmt.Sprintf(" ± %.2f", 100*r.AccSD)
			cost += fmt.Sprintf(" ± %.4f", r.CostSD)
		}
		fmt.Fprintf(&b, " %s | %s | %.1f%% |\n", acc, cost, 100*r.Cost/ref.Cost)
	}
	b.WriteString("\n")
	for _, target := range []struct {
		frac, maxCost float64
	}{{1, 0.5}, {0.9, 0.1}} {
		b.WriteString(s.targetLine(ref, target.frac, target.maxCost))
		b.WriteString(s.ceilingLine(ref, target.maxCost))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (s *EvalSummary) strongest() EvalSummaryRow {
	for _, r := range s.Rows {
		if r.Kind == RowStrongest {
			return r
		}
	}
	return EvalSummaryRow{Cost: math.NaN()}
}

// Target reports the cheapest routed row reaching frac of the strongest
// model's accuracy, and whether its cost is within maxCost of the strongest's.
func (s *EvalSummary) Target(frac float64) (EvalSummaryRow, bool) {
	ref := s.strongest()
	var best EvalSummaryRow
	found := false
	for _, r := range s.Rows {
		if r.Kind != RowRouted || r.Accuracy+1e-12 < frac*ref.Accuracy {
			continue
		}
		if !found || r.Cost < best.Cost {
			best, found = r, true
		}
	}
	return best, found
}

func (s *EvalSummary) targetLine(ref EvalSummaryRow, frac, maxCost float64) string {
	want := frac * ref.Accuracy
	r, ok := s.Target(frac)
	if !ok {
		return fmt.Sprintf("target %.0f%% of strongest accuracy (%.2f) at <= %.0f%% of its cost: NOT MET (no alpha reaches it)\n",
			100*frac, 100*want, 100*maxCost)
	}
	ratio := r.Cost / ref.Cost
	verdict := "MET"
	if ratio > maxCost {
		verdict = "NOT MET"
	}
	return fmt.Sprintf("target %.0f%% of strongest accuracy (%.2f) at <= %.0f%% of its cost: %s: α=%.2f accuracy %.2f at %.1f%% of the cost\n",
		100*frac, 100*want, 100*maxCost, verdict, r.Alpha, 100*r.Accuracy, 100*ratio)
}

// ceilingLine prints the task-level frontier's accuracy at maxCost of the
// strongest model's cost: what routing by task alone could at best reach.
func (s *EvalSummary) ceilingLine(ref EvalSummaryRow, maxCost float64) string {
	acc, ok := FrontierAccuracy(s.TaskFrontier, maxCost*ref.Cost)
	if !ok {
		return fmt.Sprintf("  routing by task alone cannot stay within %.0f%% of its cost\n", 100*maxCost)
	}
	return fmt.Sprintf("  ceiling of routing by task alone at <= %.0f%% of its cost: %.2f (from the test split's own per-task results; more needs a per-query signal)\n",
		100*maxCost, 100*acc)
}

func scorerLabel(kind string) string {
	switch kind {
	case routing.ScorerExpected:
		return "Expected"
	case routing.ScorerPredictor:
		return "Predictor"
	}
	return "Avengers-Pro"
}
