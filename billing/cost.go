package billing

import (
	"math"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/llm"
)

// Micros is an amount of US dollars in millionths.
type Micros int64

// Cost prices usage at p (US dollars per million tokens). One token at $1 per
// million costs exactly one micro-dollar, so the result is a sum of
// tokens x price, rounded half up once at the end. Reasoning tokens are part
// of Output and priced as output.
func Cost(u llm.Usage, p catalog.Price) Micros {
	total := float64(u.Input)*p.Input +
		float64(u.Output)*p.Output +
		float64(u.CacheRead)*p.CacheRead +
		float64(u.CacheWrite)*p.CacheWrite
	return Micros(math.Floor(total + 0.5))
}

// Savings is what a request cost against what its baseline would have cost.
type Savings struct {
	Actual   Micros
	Baseline Micros
	// Saved is Baseline - Actual; it is negative when the served model cost
	// more than the baseline, and is reported as such.
	Saved Micros
}

// Compare prices the same usage at the served and the baseline price.
func Compare(u llm.Usage, served, baseline catalog.Price) Savings {
	a, b := Cost(u, served), Cost(u, baseline)
	return Savings{Actual: a, Baseline: b, Saved: b - a}
}

// Dollars converts m to US dollars (for display only).
func (m Micros) Dollars() float64 { return float64(m) / 1e6 }
