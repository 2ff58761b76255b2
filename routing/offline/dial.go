package offline

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/heddle-gw/heddle/routing"
)

// DialKnots is the number of evenly spaced alpha knots of a trained dial
// (alpha 0, 0.05, ..., 1).
const DialKnots = 21

// placeDial places the dial of b (routing.ScorerExpected unless b is already
// a routing.ScorerPredictor bundle) on the training queries' vectors and
// features (nil for ScorerExpected): knot j is in the middle of the lambda
// range where the expected spend of the training queries (each routed to its
// best q - lambda*c under the bundle's own estimates) is within half a step
// of j/(DialKnots-1) of the way from the cheapest choice to the
// highest-quality one, the widest such range, ranges narrower than
// dialSliver skipped. So alpha moves spend evenly, whether the
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
	cheapest, top := 0.0, 0.0
	var breaks []dialBreak
	for i, v := range vecs {
		var f *[routing.QueryFeatureCount]float64
		if feats != nil {
			f = feats[i]
		}
		est[i] = r.ExpectedVec(v, f, all)
		first, bs, last := envelope(est[i])
		top += first
		cheapest += last
		breaks = append(breaks, bs...)
	}
	levels := spendLevels(top, breaks)
	// λ past the last switching point sends every training query to its
	// cheapest model: knot 0 sits at least twice that far.
	hi := 1.0
	for hi < 2*levels[len(levels)-1].from {
		hi *= 2
	}
	levels[len(levels)-1].to = hi
	dial := make([]float64, DialKnots)
	dial[0] = round(hi, 9)
	step := (top - cheapest) / float64(DialKnots-1)
	for j := 1; j < DialKnots-1; j++ {
		target := cheapest + float64(j)*step
		// Of the levels whose spend is within half a step of the target,
		// take the widest λ range (relative to its upper end) and put the
		// knot in its middle: never on a switching point, and as far from
		// the nearest ones as the data allows. If every level there is a
		// sliver (the window lies between near-identical queries' switching
		// points, where an estimate a hair off the training ones would flip
		// the choice), take the non-sliver level whose spend is nearest.
		best := -1
		for k, l := range levels {
			if math.Abs(l.spend-target) <= step/2 && (best < 0 || l.width() > levels[best].width()) {
				best = k
			}
		}
		if best < 0 || levels[best].sliver() {
			best = -1
			for k, l := range levels {
				if !l.sliver() && (best < 0 || math.Abs(l.spend-target) < math.Abs(levels[best].spend-target)) {
					best = k
				}
			}
		}
		l := levels[best]
		dial[j] = min(round((l.from+l.to)/2, 9), dial[j-1])
	}
	if b.Scorer != routing.ScorerPredictor {
		b.Scorer = routing.ScorerExpected
	}
	b.Dial = dial
	return b.Prepare()
}

// dialSliver is the narrowest λ range, relative to its upper end, a dial
// knot may be placed in: a level narrower than that lies between switching
// points that near-identical queries' estimates put a hair apart (1e-4 on
// the separable data of the e2e routing test). On the RouterBench training
// pairs the widest level within half a step of each knot's target is
// 0.12-3% wide.
const dialSliver = 1e-3

// tieEps is routing's tie tolerance between two models' scores.
const tieEps = 1e-12

// dialBreak is one training query's switching point: at λ its choice moves
// to a model delta dollars cheaper (delta < 0).
type dialBreak struct{ lambda, delta float64 }

// envelope follows one query's choice (the best quality - λ*cost, ties to
// the cheaper model, as routing scores it) as λ rises from 0: its cost at
// λ 0, the switching points, and its cost once λ is past them all (the
// cheapest model's).
func envelope(e []routing.ModelScore) (first float64, breaks []dialBreak, last float64) {
	cur := 0
	for m := 1; m < len(e); m++ {
		if d := e[m].Quality - e[cur].Quality; d > tieEps || (d >= -tieEps && e[m].Cost < e[cur].Cost) {
			cur = m
		}
	}
	first = e[cur].Cost
	for {
		next, at := -1, 0.0
		for m := range e {
			if e[m].Cost >= e[cur].Cost {
				continue
			}
			// Where q_m - λc_m meets q_cur - λc_cur: not below the current
			// λ, as cur is the best there.
			l := max((e[cur].Quality-e[m].Quality)/(e[cur].Cost-e[m].Cost), 0)
			if next < 0 || l < at || (l == at && e[m].Cost < e[next].Cost) {
				next, at = m, l
			}
		}
		if next < 0 {
			return first, breaks, e[cur].Cost
		}
		breaks = append(breaks, dialBreak{lambda: at, delta: e[next].Cost - e[cur].Cost})
		cur = next
	}
}

// spendLevel is one step of the training spend as a function of λ: spend
// for λ in [from, to).
type spendLevel struct{ from, to, spend float64 }

// width is l's λ range relative to its upper end.
func (l spendLevel) width() float64 { return (l.to - l.from) / l.to }

// sliver reports whether l is too narrow for a knot; the last level (to
// set to the dial's first knot, at least twice its from) never is.
func (l spendLevel) sliver() bool { return l.width() < dialSliver }

// spendLevels returns the steps of the training spend, from λ 0 (spend top)
// to the last switching point (the last level's to is left 0 for the caller).
func spendLevels(top float64, breaks []dialBreak) []spendLevel {
	slices.SortFunc(breaks, func(a, b dialBreak) int { return cmp.Compare(a.lambda, b.lambda) })
	levels := []spendLevel{{spend: top}}
	for _, br := range breaks {
		l := &levels[len(levels)-1]
		if br.lambda > l.from {
			l.to = br.lambda
			levels = append(levels, spendLevel{from: br.lambda, spend: l.spend})
			l = &levels[len(levels)-1]
		}
		l.spend += br.delta
	}
	return levels
}
