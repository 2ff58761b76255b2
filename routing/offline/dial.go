package offline

import (
	"fmt"

	"github.com/heddle-gw/heddle/routing"
)

// DialKnots is the number of evenly spaced alpha knots of a trained dial
// (alpha 0, 0.05, ..., 1).
const DialKnots = 21

// placeDial places the dial of b (routing.ScorerExpected unless b is already
// a routing.ScorerPredictor bundle) on the training queries' vectors and
// features (nil for ScorerExpected): knot j is the lambda at which the expected
// spend of the training queries (each routed to its best q - lambda*c under
// the bundle's own estimates) is j/(DialKnots-1) of the way from the cheapest
// choice to the highest-quality one. So alpha moves spend evenly, whether the
// bundle has two models or twelve; lambda falls as alpha rises, so the
// chosen model's expected quality never falls.
func placeDial(b *routing.Bundle, emb routing.Embedder, vecs [][]float32, feats []*[routing.QueryFeatureCount]float64, cfg routing.Config) error {
	r, err := routing.NewRouter(b, emb, cfg)
	if err != nil {
		return fmt.Errorf("%w: dial: %w", routing.ErrData, err)
	}
	all := make([]int, len(b.Models))
	for i := range all {
		all[i] = i
	}
	est := make([][]routing.ModelScore, len(vecs))
	cheapest := 0.0
	for i, v := range vecs {
		var f *[routing.QueryFeatureCount]float64
		if feats != nil {
			f = feats[i]
		}
		est[i] = r.ExpectedVec(v, f, all)
		lo := est[i][0].Cost
		for _, s := range est[i] {
			lo = min(lo, s.Cost)
		}
		cheapest += lo
	}
	spend := func(lambda float64) float64 {
		var total float64
		for _, e := range est {
			best := 0
			for m := 1; m < len(e); m++ {
				a, c := e[m].Quality-lambda*e[m].Cost, e[best].Quality-lambda*e[best].Cost
				if a > c+1e-12 || (a >= c-1e-12 && e[m].Cost < e[best].Cost) {
					best = m
				}
			}
			total += e[best].Cost
		}
		return total
	}
	top := spend(0)
	hi := 1.0
	for i := 0; i < 200 && spend(hi) > cheapest*(1+1e-9); i++ {
		hi *= 2
	}
	dial := make([]float64, DialKnots)
	dial[0] = round(hi, 9)
	// bisect returns the λ in [0, hi] where pred (true at 0, false at hi,
	// monotone) turns false.
	bisect := func(pred func(float64) bool) float64 {
		lo, up := 0.0, hi
		for range 80 {
			if mid := (lo + up) / 2; pred(mid) {
				lo = mid
			} else {
				up = mid
			}
		}
		return (lo + up) / 2
	}
	for j := 1; j < DialKnots-1; j++ {
		target := cheapest + float64(j)/float64(DialKnots-1)*(top-cheapest)
		edge := bisect(func(l float64) bool { return spend(l) > target })
		// Spend is a step function of λ: take the level nearest the target
		// (above or below the edge) and the middle of the λ range that gives
		// it, so a knot never sits on a switching point where a query's
		// estimate a hair off the training ones would flip.
		above, below := spend(edge*(1-1e-9)), spend(edge*(1+1e-9)+1e-300)
		level := below
		if above-target < target-below {
			level = above
		}
		from := bisect(func(l float64) bool { return spend(l) > level*(1+1e-12) })
		to := bisect(func(l float64) bool { return spend(l) >= level*(1-1e-12) })
		dial[j] = min(round((from+to)/2, 9), dial[j-1])
	}
	if b.Scorer != routing.ScorerPredictor {
		b.Scorer = routing.ScorerExpected
	}
	b.Dial = dial
	return b.Prepare()
}
