package offline

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/heddle-gw/heddle/routing"
)

// DialKnots is the number of evenly spaced alpha knots of a trained dial
// (alpha 0, 0.05, ..., 1).
const DialKnots = 21

// placeDial places the dial of b (routing.ScorerExpected unless b is already
// a routing.ScorerPredictor bundle) on the training queries' vectors and
// features (nil for ScorerExpected): knot j is in the middle of the lambda
// range where the expected spend of the training queries (each routed to its
// best q - lambda*c under the bundle's own estimates) is nearest
// j/(DialKnots-1) of the way from the cheapest choice to the highest-quality
// one, knife edges skipped (see dialSliver). So alpha moves spend evenly, whether the
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
		// Take the level whose spend is nearest the target, skipping knife
		// edges, and put the knot in the middle of its λ range: never on a
		// switching point, and never where near-identical queries switch
		// within a hair of each other (an estimate a hair off the training
		// ones would move a large share of the spend).
		best := -1
		for k, l := range levels {
			if (best < 0 || math.Abs(l.spend-target) < math.Abs(levels[best].spend-target)) && !knifeEdge(levels, k, step) {
				best = k
			}
		}
		if best < 0 { // only knife edges (not seen): the nearest level
			best = 0
			for k, l := range levels {
				if math.Abs(l.spend-target) < math.Abs(levels[best].spend-target) {
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

// dialSliver is how far, relative to λ, a knot's decisions must hold: if
// moving λ by this share either way from the middle of a level moves the
// training spend by more than one knot's step, the level is a knife edge
// between near-identical queries' switching points (their estimates a hair
// apart; on the separable data of the e2e routing test, 14 knots sat within
// 1e-4 of each other) and gets no knot. On dense data the spend moves by a
// few queries there, and every level may take a knot.
const dialSliver = 1e-3

// knifeEdge reports whether levels[k] is a knife edge (see dialSliver) for a
// knot step of step.
func knifeEdge(levels []spendLevel, k int, step float64) bool {
	mid := (levels[k].from + levels[k].to) / 2
	return spendAt(levels, mid*(1-dialSliver))-spendAt(levels, mid*(1+dialSliver)) > step
}

// spendAt is the training spend at λ.
func spendAt(levels []spendLevel, lambda float64) float64 {
	k := sort.Search(len(levels), func(i int) bool { return levels[i].from > lambda })
	return levels[max(k-1, 0)].spend
}

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
