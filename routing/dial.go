package routing

import (
	"errors"
	"fmt"
)

// Scorer kinds (Bundle.Scorer).
const (
	// ScorerAvengersPro is the Avengers-Pro cluster scorer: per cluster,
	// quality and cost min-max normalised over the eligible models, blended
	// alpha*q + (1-alpha)*(1-c). With two models every cluster reduces to
	// "strong better: yes or no", so few dial positions are distinct.
	ScorerAvengersPro = "avengers-pro"
	// ScorerExpected scores in absolute units: a model's expected quality
	// over the top-p clusters minus lambda(alpha) times its expected cost,
	// lambda read from Bundle.Dial. Every dial position is its own operating
	// point, for two models as for twelve, and more alpha never lowers the
	// chosen model's expected quality (lambda only falls as alpha rises).
	ScorerExpected = "expected"
	// ScorerPredictor is ScorerExpected with a per-query quality: each
	// model's calibrated probability of success from the query's embedding
	// and cheap difficulty features (Bundle.Predictor), against the
	// clusters' expected cost, on the same kind of dial.
	ScorerPredictor = "predictor"
)

// checkDial validates a scorer kind and its dial.
func checkDial(kind string, dial []float64) error {
	switch kind {
	case "", ScorerAvengersPro:
		if len(dial) != 0 {
			return errors.New("an avengers-pro bundle has no dial")
		}
		return nil
	case ScorerExpected, ScorerPredictor:
	default:
		return fmt.Errorf("unknown scorer %q", kind)
	}
	if len(dial) < 2 {
		return fmt.Errorf("dial has %d knots, want at least 2", len(dial))
	}
	for i, l := range dial {
		if !finite(l) || l < 0 || (i > 0 && l > dial[i-1]) {
			return fmt.Errorf("dial knot %d (%v) is not finite, non-negative and non-increasing", i, l)
		}
	}
	if dial[len(dial)-1] != 0 {
		return errors.New("dial must end at 0 (alpha 1 is quality only)")
	}
	return nil
}

// Lambda is the price of one US dollar in quality units at alpha on dial:
// linear between its evenly spaced knots, so non-increasing in alpha.
func Lambda(dial []float64, alpha float64) float64 {
	if len(dial) == 0 {
		return 0
	}
	x := min(max(alpha, 0), 1) * float64(len(dial)-1)
	i := int(x)
	if i >= len(dial)-1 {
		return dial[len(dial)-1]
	}
	f := x - float64(i)
	return dial[i]*(1-f) + dial[i+1]*f
}
