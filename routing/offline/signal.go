package offline

import (
	"cmp"
	"context"
	"fmt"
	"github.com/heddle-gw/heddle/routing"
	"io"
	"math"
	"slices"
	"strings"
)

// SignalRow is how well an embedder's neighbourhoods predict one model's
// per-query quality within one task: the ROC AUC of the mean quality of each
// query's k nearest other queries of the same task (leave-one-out), against
// whether the model got the query right (quality >= 0.5). 0.5 is no signal;
// a cluster router cannot do better than its embedder's neighbourhoods.
type SignalRow struct {
	Task  string
	Model string
	K     int
	AUC   float64 // NaN when the model got every query of the task right, or none
	N     int     // queries of the task the model scored
}

// QuerySignal computes SignalRow for every task, every model given and every
// k, with emb (fitted as Train fits it) on the samples' query texts under the
// preambles pre (a bundle's Preambles). It is quadratic in the size of each
// task: a diagnostic for evaluation data, not for the request path.
func QuerySignal(ctx context.Context, emb routing.Embedder, pre []string, samples []Sample, models []string, ks []int) ([]SignalRow, error) {
	vecs, err := embedAll(ctx, emb, queryTexts(pre, samples, 0), nil)
	if err != nil {
		return nil, err
	}
	byTask := map[string][]int{}
	for i, s := range samples {
		byTask[s.Task] = append(byTask[s.Task], i)
	}
	tasks := make([]string, 0, len(byTask))
	for t := range byTask {
		tasks = append(tasks, t)
	}
	slices.Sort(tasks)
	var out []SignalRow
	for _, task := range tasks {
		ids := byTask[task]
		neighbours := make([][]int, len(ids)) // per query: the others of the task, nearest first
		for a, i := range ids {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			type nb struct {
				j   int
				sim float32
			}
			nbs := make([]nb, 0, len(ids)-1)
			for _, j := range ids {
				if j != i {
					nbs = append(nbs, nb{j, routing.Similarity(vecs[i], vecs[j])})
				}
			}
			slices.SortStableFunc(nbs, func(x, y nb) int { return cmp.Compare(y.sim, x.sim) })
			neighbours[a] = make([]int, len(nbs))
			for b, n := range nbs {
				neighbours[a][b] = n.j
			}
		}
		for _, m := range models {
			for _, k := range ks {
				out = append(out, signalOf(samples, ids, neighbours, task, m, k))
			}
		}
	}
	return out, nil
}

func signalOf(samples []Sample, ids []int, neighbours [][]int, task, model string, k int) SignalRow {
	row := SignalRow{Task: task, Model: model, K: k}
	var pred, truth []float64
	for a, i := range ids {
		q, ok := samples[i].Quality[model]
		if !ok {
			continue
		}
		var sum float64
		n := 0
		for _, j := range neighbours[a] {
			if n == k {
				break
			}
			if qj, ok := samples[j].Quality[model]; ok {
				sum += qj
				n++
			}
		}
		if n == 0 {
			continue
		}
		pred = append(pred, sum/float64(n))
		truth = append(truth, q)
	}
	row.N = len(pred)
	row.AUC = rocAUC(pred, truth)
	return row
}

// rocAUC is the probability that a positive (truth >= 0.5) scores above a
// negative, ties counting half (the rank-sum form); NaN without both.
func rocAUC(score, truth []float64) float64 {
	idx := make([]int, len(score))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(score[a], score[b]) })
	ranks := make([]float64, len(score))
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && score[idx[j]] == score[idx[i]] {
			j++
		}
		for l := i; l < j; l++ {
			ranks[idx[l]] = float64(i+j+1) / 2 // mean of ranks i+1..j
		}
		i = j
	}
	var pos, neg, sum float64
	for i, t := range truth {
		if t >= 0.5 {
			pos++
			sum += ranks[i]
		} else {
			neg++
		}
	}
	if pos == 0 || neg == 0 {
		return math.NaN()
	}
	return (sum - pos*(pos+1)/2) / (pos * neg)
}

// WriteSignal prints rows as a table: one line per task and model, one
// column per k.
func WriteSignal(w io.Writer, rows []SignalRow, ks []int) error {
	var b strings.Builder
	b.WriteString("\nper-query signal on the training data (leave-one-out ROC AUC of the k nearest same-task queries' mean quality; 0.5 = none):\n\n| Task | Model | Queries |")
	for _, k := range ks {
		fmt.Fprintf(&b, " k=%d |", k)
	}
	b.WriteString("\n|---|---|---:|")
	for range ks {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for i := 0; i < len(rows); i += len(ks) {
		r := rows[i]
		fmt.Fprintf(&b, "| %s | %s | %d |", r.Task, r.Model, r.N)
		for _, c := range rows[i : i+len(ks)] {
			if math.IsNaN(c.AUC) {
				b.WriteString(" - |")
			} else {
				fmt.Fprintf(&b, " %.3f |", c.AUC)
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
