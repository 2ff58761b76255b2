package offline

import (
	"math/rand/v2"

	"github.com/heddle-gw/heddle/routing"
)

// bagFit is one fit of the predictor on one split of d: the shared
// difficulty's weights (the design's layout, its d column 0), every model's
// weights and its Platt calibration (a, b).
type bagFit struct {
	shared []float64
	w      [][]float64
	cal    [][2]float64
}

// fitBag fits the shared difficulty (every row's d column 0), writes every
// row's d column from it, then fits one logistic regression per model on
// d's current split and calibrates each on its held-out part.
func fitBag(d *predictorData, models int, cfg PredictorConfig) bagFit {
	dcol := len(d.x[0]) - 2
	for _, row := range d.x {
		row[dcol] = 0
	}
	var f bagFit
	f.shared = fitLogistic(d, models, cfg)
	for _, row := range d.x {
		row[dcol] = float32(dot(f.shared, row))
	}
	for m := range models {
		f.w = append(f.w, fitLogistic(d, m, cfg))
	}
	for m := range models {
		a, b := platt(d, m, f.w[m])
		f.cal = append(f.cal, [2]float64{a, b})
	}
	return f
}

// store writes f into p as it is (rounded for the bundle file).
func (f bagFit) store(p *routing.Predictor) {
	dcol := len(f.shared) - 2
	p.Shared = make([]float32, 0, len(f.shared)-1)
	for i, x := range f.shared {
		if i != dcol {
			p.Shared = append(p.Shared, float32(round(x, 6)))
		}
	}
	p.Weights = make([][]float32, len(f.w))
	p.CalA, p.CalB = make([]float64, len(f.w)), make([]float64, len(f.w))
	for m, w := range f.w {
		p.Weights[m] = make([]float32, len(w))
		for i, x := range w {
			p.Weights[m][i] = float32(round(x, 6))
		}
		p.CalA[m], p.CalB[m] = round(f.cal[m][0], 9), round(f.cal[m][1], 9)
	}
}

// combineBags stores the mean of the bags' calibrated logits in p. Every
// bag's logit is linear in the query's inputs (its difficulty term too), so
// the mean is one weight vector per model: its d weight is 0, its
// calibration the identity, and Shared the bags' mean difficulty (unused
// by the models, kept for the bundle's layout).
func combineBags(p *routing.Predictor, fits []bagFit) {
	n := float64(len(fits))
	width := len(fits[0].shared)
	dcol := width - 2
	shared := make([]float64, width)
	for _, f := range fits {
		for k, x := range f.shared {
			shared[k] += x / n
		}
	}
	mean := bagFit{shared: shared}
	for m := range fits[0].w {
		w := make([]float64, width)
		for _, f := range fits {
			a, b := f.cal[m][0], f.cal[m][1]
			wd := f.w[m][dcol]
			for k := range w {
				if k != dcol {
					w[k] += a * (f.w[m][k] + wd*f.shared[k]) / n
				}
			}
			w[width-1] += b / n
		}
		mean.w = append(mean.w, w)
		mean.cal = append(mean.cal, [2]float64{1, 0})
	}
	mean.store(p)
}

// bagHolds splits n samples into bags disjoint held-out parts of one
// seeded permutation.
func bagHolds(n, bags int, seed uint64) [][]int {
	perm := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)).Perm(n)
	holds := make([][]int, bags)
	for pos, i := range perm {
		holds[pos%bags] = append(holds[pos%bags], i)
	}
	return holds
}

// setSplit holds out the samples hold and fits on the others.
func (d *predictorData) setSplit(hold []int) {
	in := make([]bool, len(d.x))
	for _, i := range hold {
		in[i] = true
	}
	d.hold, d.fit = hold, d.fit[:0:0]
	for i := range d.x {
		if !in[i] {
			d.fit = append(d.fit, i)
		}
	}
}

func dot32(w []float32, x []float32) float64 {
	var s float64
	for k, v := range x {
		s += float64(w[k]) * float64(v)
	}
	return s
}
