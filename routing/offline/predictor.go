package offline

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/heddle-gw/heddle/routing"
)

// Predictor training settings (chosen by 5-fold cross-validation on the
// RouterBench training split; see routing/testdata/README.md).
const (
	// DefaultPredictorFolds is the number of inner folds that choose the
	// ridge penalty and give the out-of-fold estimates the stack is fitted
	// on.
	DefaultPredictorFolds = 5
	// predictorFeatureWeight scales the standardised cheap features against
	// the unit-length embedding before the ridge (it is folded into
	// Predictor.Scale): the features then cost the penalty a third of what
	// a standardised weight would.
	predictorFeatureWeight = 0.3
	// stackRidge is the small ridge of the stack's logistic.
	stackRidge = 1e-3
)

// PredictorL2s is the grid of ridge penalties (per training sample) the
// inner cross-validation chooses from.
var PredictorL2s = []float64{0.01, 0.03, 0.1, 0.3, 1}

// PredictorConfig tunes the per-query predictor's training. Zero values take
// the defaults.
type PredictorConfig struct {
	// L2, when > 0, fixes the ridge penalty: each regression minimises
	// sum (y - w.x - b)^2 + L2*n*|w|^2 over its n samples. 0 chooses it
	// from PredictorL2s by the lowest out-of-fold squared error.
	L2 float64
	// Folds is the number of inner folds (DefaultPredictorFolds).
	Folds int
}

func (c *PredictorConfig) defaults() {
	if c.Folds < 2 {
		c.Folds = DefaultPredictorFolds
	}
}

// featuresOf computes every sample's QueryFeatures.
func featuresOf(samples []Sample) []*[routing.QueryFeatureCount]float64 {
	out := make([]*[routing.QueryFeatureCount]float64, len(samples))
	for i, s := range samples {
		out[i] = new([routing.QueryFeatureCount]float64)
		routing.QueryFeatures(s.Prompt, s.Turn, out[i])
	}
	return out
}

// trainPredictor fits a routing.FormStacked predictor:
//
//  1. Targets: every model's score scaled to [0, 1] by the training scores'
//     range (NaN where the model did not run), and their mean over the
//     models that ran (the shared target t).
//  2. One ridge regression per target on the embedding and the weighted,
//     standardised features (closed form; bias unpenalised). The penalty is
//     cfg.L2 or the one of PredictorL2s with the lowest squared error summed
//     over all targets on Folds seeded inner folds, which also give every
//     sample out-of-fold estimates r (per model) and t.
//  3. Per model, a logistic of its 0/1-scaled score on (r, t, t*t, 1) over
//     the out-of-fold estimates (Newton, small ridge): the stack.
//  4. The ridge weights refitted on all samples at the chosen penalty.
//
// It is deterministic for its inputs and seed.
func trainPredictor(ctx context.Context, samples []Sample, models []string, vecs [][]float32, feats []*[routing.QueryFeatureCount]float64, seed uint64, cfg PredictorConfig) (*routing.Predictor, error) {
	cfg.defaults()
	if len(samples) < 2*cfg.Folds {
		return nil, fmt.Errorf("%w: the predictor needs at least %d samples, got %d", routing.ErrData, 2*cfg.Folds, len(samples))
	}
	p := &routing.Predictor{FeatureVersion: routing.FeatureVersion, Form: routing.FormStacked}
	p.QMin, p.QMax = math.Inf(1), math.Inf(-1)
	for _, s := range samples {
		for _, q := range s.Quality {
			p.QMin, p.QMax = min(p.QMin, q), max(p.QMax, q)
		}
	}
	if p.QMax <= p.QMin {
		p.QMax = p.QMin + 1
	}
	mean, sd := standardisation(feats)
	p.Mean, p.Scale = mean, make([]float64, len(sd))
	for j := range sd {
		p.Scale[j] = round(sd[j]/predictorFeatureWeight, 9)
	}
	rows := sparseRows(vecs, feats, p)
	y := targets(samples, models, p)
	fold := make([]int, len(samples))
	for pos, i := range rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)).Perm(len(samples)) {
		fold[i] = pos % cfg.Folds
	}
	dim := len(vecs[0]) + routing.QueryFeatureCount
	groups := groupTargets(y)
	lambdas := PredictorL2s
	if cfg.L2 > 0 {
		lambdas = []float64{cfg.L2}
	}
	// oof[l][t][i]: target t's out-of-fold estimate for sample i at lambdas[l].
	oof := make([][][]float64, len(lambdas))
	sse := make([]float64, len(lambdas))
	for l := range lambdas {
		oof[l] = make([][]float64, len(y))
	}
	stats := make([]*ridgeStats, len(groups))
	for gi, g := range groups {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		st := newRidgeStats(dim, cfg.Folds, rows, fold, g, y)
		stats[gi] = st
		for l, lambda := range lambdas {
			for f := range cfg.Folds {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				ws, ok := st.solve(f, lambda)
				if !ok {
					return nil, fmt.Errorf("%w: the predictor's ridge system is singular", routing.ErrData)
				}
				for k, t := range g.targets {
					if oof[l][t] == nil {
						oof[l][t] = nanSlice(len(samples))
					}
					for _, i := range g.samples {
						if fold[i] != f {
							continue
						}
						est := rows[i].dot(ws[k])
						oof[l][t][i] = est
						sse[l] += (est - y[t][i]) * (est - y[t][i])
					}
				}
			}
		}
	}
	best := 0
	for l := range lambdas {
		if sse[l] < sse[best]-1e-12 {
			best = l
		}
	}
	lambda := lambdas[best]
	shared := len(models)
	p.Weights = make([][]float32, len(models))
	for gi, g := range groups {
		ws, ok := stats[gi].solve(-1, lambda)
		if !ok {
			return nil, fmt.Errorf("%w: the predictor's ridge system is singular", routing.ErrData)
		}
		for k, t := range g.targets {
			w := make([]float32, len(ws[k]))
			for i, x := range ws[k] {
				w[i] = float32(round(x, 6))
			}
			if t == shared {
				p.Shared = w
			} else {
				p.Weights[t] = w
			}
		}
	}
	p.Stack = make([][]float64, len(models))
	tOOF := oof[best][shared]
	for m := range models {
		p.Stack[m] = fitStack(oof[best][m], tOOF, y[m])
		for k := range p.Stack[m] {
			p.Stack[m][k] = round(p.Stack[m][k], 9)
		}
	}
	return p, nil
}

func nanSlice(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}

// sparseRow is one sample's design row: the embedding, then the features
// standardised by p (weighted through p.Scale), zeros left out.
type sparseRow struct {
	idx []int32
	val []float64
}

// dot is w's value for the row: w holds one weight per column, then the
// bias.
func (r sparseRow) dot(w []float64) float64 {
	s := w[len(w)-1]
	for k, j := range r.idx {
		s += w[j] * r.val[k]
	}
	return s
}

func sparseRows(vecs [][]float32, feats []*[routing.QueryFeatureCount]float64, p *routing.Predictor) []sparseRow {
	rows := make([]sparseRow, len(vecs))
	for i, v := range vecs {
		var r sparseRow
		for j, x := range v {
			if x != 0 {
				r.idx, r.val = append(r.idx, int32(j)), append(r.val, float64(x))
			}
		}
		for j, f := range feats[i] {
			if z := (f - p.Mean[j]) / p.Scale[j]; z != 0 {
				r.idx, r.val = append(r.idx, int32(len(v)+j)), append(r.val, z)
			}
		}
		rows[i] = r
	}
	return rows
}

// targets returns, per model and then for their mean, every sample's score
// scaled to [0, 1] by p's range (NaN where the model did not run or, for
// the mean, no model ran).
func targets(samples []Sample, models []string, p *routing.Predictor) [][]float64 {
	y := make([][]float64, len(models)+1)
	for t := range y {
		y[t] = nanSlice(len(samples))
	}
	for i, s := range samples {
		var sum float64
		n := 0
		for m, model := range models {
			q, ok := s.Quality[model]
			if _, hasCost := s.Cost[model]; !ok || !hasCost {
				continue
			}
			y[m][i] = (q - p.QMin) / (p.QMax - p.QMin)
			sum += y[m][i]
			n++
		}
		if n > 0 {
			y[len(models)][i] = sum / float64(n)
		}
	}
	return y
}

// targetGroup is a set of targets defined on the same samples, so their
// ridge regressions share one system.
type targetGroup struct {
	targets []int
	samples []int
}

func groupTargets(y [][]float64) []targetGroup {
	var groups []targetGroup
	byMask := map[string]int{}
	for t, col := range y {
		mask := make([]byte, len(col))
		var samples []int
		for i, v := range col {
			if !math.IsNaN(v) {
				mask[i] = 1
				samples = append(samples, i)
			}
		}
		if len(samples) == 0 {
			continue
		}
		g, ok := byMask[string(mask)]
		if !ok {
			g = len(groups)
			byMask[string(mask)] = g
			groups = append(groups, targetGroup{samples: samples})
		}
		groups[g].targets = append(groups[g].targets, t)
	}
	return groups
}

// ridgeStats holds, per inner fold, the sufficient statistics of a group's
// regressions: the count, the column sums, the lower triangle of X'X and,
// per target, the sum of y and X'y.
type ridgeStats struct {
	dim   int
	n     []float64
	sx    [][]float64
	xx    [][]float64
	sy    [][]float64   // [fold][target]
	xy    [][][]float64 // [fold][target][column]
	nTarg int
}

func newRidgeStats(dim, folds int, rows []sparseRow, fold []int, g targetGroup, y [][]float64) *ridgeStats {
	st := &ridgeStats{dim: dim, nTarg: len(g.targets), n: make([]float64, folds)}
	st.sx, st.xx, st.sy, st.xy = make([][]float64, folds), make([][]float64, folds), make([][]float64, folds), make([][][]float64, folds)
	for f := range folds {
		st.sx[f], st.xx[f], st.sy[f] = make([]float64, dim), make([]float64, dim*dim), make([]float64, len(g.targets))
		st.xy[f] = make([][]float64, len(g.targets))
		for k := range g.targets {
			st.xy[f][k] = make([]float64, dim)
		}
	}
	for _, i := range g.samples {
		f, r := fold[i], rows[i]
		st.n[f]++
		sx, xx := st.sx[f], st.xx[f]
		for a, ja := range r.idx {
			va := r.val[a]
			sx[ja] += va
			row := xx[int(ja)*dim:]
			for b := 0; b <= a; b++ {
				row[r.idx[b]] += va * r.val[b]
			}
		}
		for k, t := range g.targets {
			yv := y[t][i]
			st.sy[f][k] += yv
			xy := st.xy[f][k]
			for a, ja := range r.idx {
				xy[ja] += r.val[a] * yv
			}
		}
	}
	return st
}

// solve fits every target of the group on all folds but leave (-1: on all
// of them) with penalty lambda*n, returning per target the column weights
// then the bias; false when the system is not positive definite.
func (st *ridgeStats) solve(leave int, lambda float64) ([][]float64, bool) {
	d := st.dim
	var n float64
	sx, a := make([]float64, d), make([]float64, d*d)
	sy, xy := make([]float64, st.nTarg), make([][]float64, st.nTarg)
	for k := range xy {
		xy[k] = make([]float64, d)
	}
	for f := range st.n {
		if f == leave {
			continue
		}
		n += st.n[f]
		for j, v := range st.sx[f] {
			sx[j] += v
		}
		for j, v := range st.xx[f] {
			a[j] += v
		}
		for k := range xy {
			sy[k] += st.sy[f][k]
			for j, v := range st.xy[f][k] {
				xy[k][j] += v
			}
		}
	}
	if n < 2 {
		return nil, false
	}
	// Centre: X'X - sx sx'/n, X'y - sx sy/n; penalise.
	for i := range d {
		for j := 0; j <= i; j++ {
			a[i*d+j] -= sx[i] * sx[j] / n
		}
		a[i*d+i] += lambda * n
	}
	if !cholesky(a, d) {
		return nil, false
	}
	out := make([][]float64, st.nTarg)
	for k := range out {
		b := make([]float64, d)
		for j := range b {
			b[j] = xy[k][j] - sx[j]*sy[k]/n
		}
		choleskySolve(a, d, b)
		bias := sy[k]
		for j, w := range b {
			bias -= w * sx[j]
		}
		out[k] = append(b, bias/n)
	}
	return out, true
}

// cholesky factors the symmetric positive definite a (d x d, row-major,
// lower triangle read) in place into L (lower triangle); false if a is not
// positive definite.
func cholesky(a []float64, d int) bool {
	for j := range d {
		rj := a[j*d : j*d+j]
		s := a[j*d+j]
		for _, v := range rj {
			s -= v * v
		}
		if !(s > 1e-12) {
			return false
		}
		s = math.Sqrt(s)
		a[j*d+j] = s
		for i := j + 1; i < d; i++ {
			ri := a[i*d : i*d+j]
			v := a[i*d+j]
			for k, x := range ri {
				v -= x * rj[k]
			}
			a[i*d+j] = v / s
		}
	}
	return true
}

// choleskySolve solves L L' x = b in place for the factor from cholesky.
func choleskySolve(l []float64, d int, b []float64) {
	for i := range d {
		v := b[i]
		for k, x := range l[i*d : i*d+i] {
			v -= x * b[k]
		}
		b[i] = v / l[i*d+i]
	}
	for i := d - 1; i >= 0; i-- {
		v := b[i]
		for k := i + 1; k < d; k++ {
			v -= l[k*d+i] * b[k]
		}
		b[i] = v / l[i*d+i]
	}
}

// fitStack fits p = sigmoid(w . (r, t, t*t, 1)) to the targets y by Newton's
// method on the log loss plus stackRidge/2 |w|^2, over the samples where r,
// t and y are all defined. Without such samples the stack passes r through
// a logistic of slope 4 around 0.5 (about the identity on [0, 1]).
func fitStack(r, t, y []float64) []float64 {
	var xs [][routing.StackTerms]float64
	var ys []float64
	for i := range y {
		if math.IsNaN(r[i]) || math.IsNaN(t[i]) || math.IsNaN(y[i]) {
			continue
		}
		xs = append(xs, [routing.StackTerms]float64{r[i], t[i], t[i] * t[i], 1})
		ys = append(ys, y[i])
	}
	w := make([]float64, routing.StackTerms)
	if len(xs) == 0 {
		w[0], w[3] = 4, -2
		return w
	}
	const n = routing.StackTerms
	for range 50 {
		var g [n]float64
		var h [n * n]float64
		for i, x := range xs {
			var z float64
			for k := range x {
				z += w[k] * x[k]
			}
			pr := routing.Sigmoid(z)
			v := pr * (1 - pr)
			for k := range x {
				g[k] += (pr - ys[i]) * x[k]
				for l := 0; l <= k; l++ {
					h[k*n+l] += v * x[k] * x[l]
				}
			}
		}
		for k := range n {
			g[k] += stackRidge * w[k]
			h[k*n+k] += stackRidge
		}
		if !cholesky(h[:], n) {
			break
		}
		step := g
		choleskySolve(h[:], n, step[:])
		var moved float64
		for k := range w {
			w[k] -= step[k]
			moved += math.Abs(step[k])
		}
		if moved < 1e-10 {
			break
		}
	}
	for _, x := range w {
		if !(math.Abs(x) < 1e6) {
			return []float64{4, 0, 0, -2}
		}
	}
	return w
}

// standardisation returns each feature's mean and standard deviation over
// the samples (1 for a constant feature).
func standardisation(feats []*[routing.QueryFeatureCount]float64) (mean, scale []float64) {
	mean, scale = make([]float64, routing.QueryFeatureCount), make([]float64, routing.QueryFeatureCount)
	n := float64(len(feats))
	for _, f := range feats {
		for j, x := range f {
			mean[j] += x / n
		}
	}
	for _, f := range feats {
		for j, x := range f {
			scale[j] += (x - mean[j]) * (x - mean[j]) / n
		}
	}
	for j := range scale {
		mean[j] = round(mean[j], 9)
		scale[j] = round(math.Sqrt(scale[j]), 9)
		if !(scale[j] > 1e-9) {
			scale[j] = 1
		}
	}
	return mean, scale
}
