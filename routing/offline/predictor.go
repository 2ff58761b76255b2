package offline

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/heddle-gw/heddle/routing"
)

// Predictor training defaults (chosen by cross-validation on the RouterBench
// training split; see routing/testdata/README.md).
const (
	DefaultPredictorL2         = 1e-3
	DefaultPredictorRate       = 0.05
	DefaultPredictorEpochs     = 400
	DefaultPredictorPatience   = 25
	DefaultPredictorValidation = 0.2
	// DefaultPredictorBags is one fit: five bags won train-only
	// cross-validation with wordvec on both RouterBench pairs but lost it
	// with lexical-v1 on gpt-4 vs mixtral (routing/testdata/README.md).
	DefaultPredictorBags = 1
)

// PredictorConfig tunes the per-query predictor's training. Zero values take
// the defaults above.
type PredictorConfig struct {
	// L2 is the ridge penalty on the non-bias weights (per-sample loss
	// plus L2/2 |w|^2).
	L2 float64
	// Rate is the Adam step size.
	Rate float64
	// Epochs bounds the full-batch steps; Patience stops a model's training
	// after that many steps without a lower validation loss.
	Epochs   int
	Patience int
	// Validation is the share of the training samples held out for early
	// stopping and calibration when Bags is 1.
	Validation float64
	// Bags fits the predictor Bags times, each time holding out another of
	// Bags disjoint parts of one seeded permutation of the samples (so
	// Validation is 1/Bags), and averages the bags' calibrated logits; the
	// blend is chosen on every sample's estimate from the bag that held it
	// out. 1 is one fit on a seeded (1-Validation) part.
	Bags int
}

func (c *PredictorConfig) defaults() {
	if c.L2 <= 0 {
		c.L2 = DefaultPredictorL2
	}
	if c.Rate <= 0 {
		c.Rate = DefaultPredictorRate
	}
	if c.Epochs <= 0 {
		c.Epochs = DefaultPredictorEpochs
	}
	if c.Patience <= 0 {
		c.Patience = DefaultPredictorPatience
	}
	if c.Validation <= 0 || c.Validation >= 1 {
		c.Validation = DefaultPredictorValidation
	}
	if c.Bags <= 0 {
		c.Bags = DefaultPredictorBags
	}
}

// featuresOf computes every sample's QueryFeatures of its query text
// (texts, aligned with samples).
func featuresOf(texts []string, samples []Sample) []*[routing.QueryFeatureCount]float64 {
	out := make([]*[routing.QueryFeatureCount]float64, len(samples))
	for i, s := range samples {
		out[i] = new([routing.QueryFeatureCount]float64)
		routing.QueryFeatures(texts[i], s.Turn, out[i])
	}
	return out
}

// predictorData is the design matrix: per sample the embedding, the
// standardised features, the shared difficulty and a 1 for the bias; per
// sample and model the target in [0, 1] (NaN where the model did not run),
// and last the mean target over the models that ran (the shared
// difficulty's).
type predictorData struct {
	x    [][]float32
	y    [][]float64
	fit  []int // sample indices the weights are fitted on
	hold []int // held out for early stopping and calibration
}

// trainPredictor fits the per-model logistic regressions: full-batch Adam on
// the mean log loss plus the L2 penalty, from zero weights, on all samples
// but a held-out part; each model keeps the weights of its lowest held-out
// loss and stops after Patience steps without a new one; then a Platt
// scaling is fitted on the held-out part. With cfg.Bags > 1 (and at least 4
// samples per bag) that is done once per bag, each holding out another part
// of a seeded permutation, and the bags' calibrated logits are averaged
// (combineBags); with one bag the held-out part is a seeded Validation
// share. It is deterministic for its inputs and seed.
//
// With clusters (per sample and model the clusters' expected quality, in the
// scores' units; nil for none) it also chooses each model's Blend: the
// weight of the per-query estimate, the rest on the clusters' mean, that
// gives the lowest squared error over the held-out estimates (each sample's
// from the bag that held it out; a grid of blendSteps+1 weights; the
// clusters were fitted on every training sample, which favours them a
// little).
func trainPredictor(ctx context.Context, samples []Sample, models []string, vecs [][]float32, feats []*[routing.QueryFeatureCount]float64, clusters [][]float64, seed uint64, cfg PredictorConfig) (*routing.Predictor, error) {
	cfg.defaults()
	if len(samples) < 4 {
		return nil, fmt.Errorf("%w: the predictor needs at least 4 samples, got %d", routing.ErrData, len(samples))
	}
	p := &routing.Predictor{FeatureVersion: routing.FeatureVersion}
	p.QMin, p.QMax = math.Inf(1), math.Inf(-1)
	for _, s := range samples {
		for _, q := range s.Quality {
			p.QMin, p.QMax = min(p.QMin, q), max(p.QMax, q)
		}
	}
	if p.QMax <= p.QMin {
		p.QMax = p.QMin + 1
	}
	p.Mean, p.Scale = standardisation(feats)
	d := buildDesign(samples, models, vecs, feats, p, seed, cfg.Validation)
	holds := [][]int{d.hold}
	if bags := min(cfg.Bags, len(samples)/4); bags > 1 {
		holds = bagHolds(len(samples), bags, seed)
	}
	// oof holds each sample's calibrated estimate per model from the bag
	// that held it out (NaN where no bag did): what the blend is chosen on.
	oof := make([][]float64, len(samples))
	for i := range oof {
		oof[i] = make([]float64, len(models))
		for m := range oof[i] {
			oof[i][m] = math.NaN()
		}
	}
	var fits []bagFit
	for _, hold := range holds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d.setSplit(hold)
		f := fitBag(d, len(models), cfg)
		for _, i := range hold {
			for m := range models {
				oof[i][m] = routing.Sigmoid(f.cal[m][0]*dot(f.w[m], d.x[i]) + f.cal[m][1])
			}
		}
		fits = append(fits, f)
	}
	if len(fits) == 1 {
		fits[0].store(p)
		for _, i := range holds[0] {
			for m := range models {
				oof[i][m] = routing.Sigmoid(p.CalA[m]*dot32(p.Weights[m], d.x[i]) + p.CalB[m])
			}
		}
	} else {
		combineBags(p, fits)
	}
	if clusters != nil {
		p.Blend = make([]float64, len(models))
		for m := range models {
			p.Blend[m] = blendWeight(d, p, m, oof, clusters)
		}
	}
	return p, nil
}

// blendSteps is the resolution of the blend weight grid.
const blendSteps = 20

// blendWeight returns model m's blend weight (see trainPredictor): the grid
// weight of the lowest squared error over the samples with an out-of-bag
// estimate (oof, per sample and model), the higher weight on ties.
func blendWeight(d *predictorData, p *routing.Predictor, m int, oof, clusters [][]float64) float64 {
	type pair struct{ pred, clu, y float64 }
	var hold []pair
	for i := range d.y {
		y := d.y[i][m]
		if math.IsNaN(y) || math.IsNaN(oof[i][m]) {
			continue
		}
		hold = append(hold, pair{oof[i][m], (clusters[i][m] - p.QMin) / (p.QMax - p.QMin), y})
	}
	best, bestErr := 1.0, math.Inf(1)
	for k := blendSteps; k >= 0; k-- {
		bw := float64(k) / blendSteps
		var e float64
		for _, h := range hold {
			r := bw*h.pred + (1-bw)*h.clu - h.y
			e += r * r
		}
		if e < bestErr-1e-12 {
			best, bestErr = bw, e
		}
	}
	return best
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

func buildDesign(samples []Sample, models []string, vecs [][]float32, feats []*[routing.QueryFeatureCount]float64, p *routing.Predictor, seed uint64, validation float64) *predictorData {
	d := &predictorData{x: make([][]float32, len(samples)), y: make([][]float64, len(samples))}
	for i, s := range samples {
		row := make([]float32, 0, len(vecs[i])+routing.QueryFeatureCount+2)
		row = append(row, vecs[i]...)
		for j, f := range feats[i] {
			row = append(row, float32((f-p.Mean[j])/p.Scale[j]))
		}
		d.x[i] = append(row, 0, 1)
		d.y[i] = make([]float64, len(models)+1)
		var sum float64
		n := 0
		for m, model := range models {
			q, ok := s.Quality[model]
			if _, hasCost := s.Cost[model]; !ok || !hasCost {
				d.y[i][m] = math.NaN()
				continue
			}
			d.y[i][m] = (q - p.QMin) / (p.QMax - p.QMin)
			sum += d.y[i][m]
			n++
		}
		d.y[i][len(models)] = math.NaN()
		if n > 0 {
			d.y[i][len(models)] = sum / float64(n)
		}
	}
	perm := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)).Perm(len(samples))
	nHold := max(1, int(math.Round(validation*float64(len(samples)))))
	d.hold, d.fit = perm[:nHold], perm[nHold:]
	return d
}

// fitLogistic trains model m's weights (see trainPredictor).
func fitLogistic(d *predictorData, m int, cfg PredictorConfig) []float64 {
	dim := len(d.x[0])
	w := make([]float64, dim)
	best := make([]float64, dim)
	grad, m1, m2 := make([]float64, dim), make([]float64, dim), make([]float64, dim)
	bestLoss := logLoss(d, d.hold, m, w)
	const b1, b2, eps = 0.9, 0.999, 1e-8
	stale := 0
	for epoch := 1; epoch <= cfg.Epochs && stale < cfg.Patience; epoch++ {
		clear(grad)
		n := 0
		for _, i := range d.fit {
			y := d.y[i][m]
			if math.IsNaN(y) {
				continue
			}
			n++
			g := float32(routing.Sigmoid(dot(w, d.x[i])) - y)
			for k, x := range d.x[i] {
				grad[k] += float64(g * x)
			}
		}
		if n == 0 {
			break
		}
		c1, c2 := 1-math.Pow(b1, float64(epoch)), 1-math.Pow(b2, float64(epoch))
		for k := range w {
			g := grad[k] / float64(n)
			if k < dim-1 {
				g += cfg.L2 * w[k]
			}
			m1[k] = b1*m1[k] + (1-b1)*g
			m2[k] = b2*m2[k] + (1-b2)*g*g
			w[k] -= cfg.Rate * (m1[k] / c1) / (math.Sqrt(m2[k]/c2) + eps)
		}
		if loss := logLoss(d, d.hold, m, w); loss < bestLoss-1e-9 {
			bestLoss, stale = loss, 0
			copy(best, w)
		} else {
			stale++
		}
	}
	return best
}

func dot(w []float64, x []float32) float64 {
	var s float64
	for k, v := range x {
		s += w[k] * float64(v)
	}
	return s
}

// logLoss is model m's mean log loss over the samples idx that scored it.
func logLoss(d *predictorData, idx []int, m int, w []float64) float64 {
	var sum float64
	n := 0
	for _, i := range idx {
		y := d.y[i][m]
		if math.IsNaN(y) {
			continue
		}
		sum += xent(dot(w, d.x[i]), y)
		n++
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// xent is the log loss of logit z against target y, stable for large |z|.
func xent(z, y float64) float64 {
	return math.Max(z, 0) - z*y + math.Log1p(math.Exp(-math.Abs(z)))
}

// platt fits p = sigmoid(a*z + b) on the held-out samples by Newton's method
// on the log loss with a small ridge toward the identity (a 1, b 0), so a
// small validation part cannot bend the regression much.
func platt(d *predictorData, m int, w []float64) (a, b float64) {
	var zs, ys []float64
	for _, i := range d.hold {
		if y := d.y[i][m]; !math.IsNaN(y) {
			zs, ys = append(zs, dot(w, d.x[i])), append(ys, y)
		}
	}
	a, b = 1, 0
	if len(zs) < 2 {
		return a, b
	}
	const ridge = 1.0
	for range 50 {
		ga, gb := ridge*(a-1), ridge*b
		haa, hab, hbb := ridge, 0.0, ridge
		for i, z := range zs {
			p := routing.Sigmoid(a*z + b)
			r := p - ys[i]
			ga += r * z
			gb += r
			v := p * (1 - p)
			haa += v * z * z
			hab += v * z
			hbb += v
		}
		det := haa*hbb - hab*hab
		if det <= 1e-12 {
			break
		}
		da, db := (hbb*ga-hab*gb)/det, (haa*gb-hab*ga)/det
		a, b = a-da, b-db
		if math.Abs(da)+math.Abs(db) < 1e-10 {
			break
		}
	}
	return a, b
}
