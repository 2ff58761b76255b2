package offline

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/heddle-gw/heddle/routing"
)

// Operating is a router's accuracy and cost on the test set.
type Operating struct {
	Accuracy float64 `json:"accuracy"`
	Cost     float64 `json:"cost"`
}

// CurvePoint is one dial position: accuracy, total cost, cost as a share of
// the strongest model's, the share of calls each model got, and X, the
// position on the x axis of the gap-recovered curve (the strongest model's
// call share for two models, the cost share otherwise).
type CurvePoint struct {
	Param     float64            `json:"param"`
	Accuracy  float64            `json:"accuracy"`
	Cost      float64            `json:"cost"`
	CostShare float64            `json:"cost_share"`
	Calls     map[string]float64 `json:"calls"`
	X         float64            `json:"x"`
	PGR       float64            `json:"pgr"`
}

// Curve is a router's performance-gap-recovered curve: PGR = (accuracy -
// cheapest's) / (strongest's - cheapest's) against X. APGR is its area over
// X in [0, 1] with the two single models as end points; CPT50 and CPT80 are
// the smallest X at which PGR reaches 0.5 and 0.8 (NaN if never); MaxGap is
// the widest X step between consecutive points.
type Curve struct {
	Points []CurvePoint `json:"points"`
	APGR   float64      `json:"apgr"`
	CPT50  float64      `json:"-"`
	CPT80  float64      `json:"-"`
	MaxGap float64      `json:"max_gap"`
}

// CurveReport is one seed's evaluation as curves: the router's and a random
// router's that calls each model with the same shares.
type CurveReport struct {
	Models    []string  `json:"models"`
	Strongest string    `json:"strongest"`
	Cheapest  string    `json:"cheapest"`
	XAxis     string    `json:"x_axis"`
	Strong    Operating `json:"strong"`
	Weak      Operating `json:"weak"`
	Oracle    Operating `json:"oracle"`
	Router    Curve     `json:"router"`
	Random    Curve     `json:"random"`
}

// CurveOf turns a report into curves. Accuracy per model (for the random
// router) is the test mean of its quality.
func CurveOf(rep *EvalReport, test []Sample) (*CurveReport, error) {
	byKind := map[string]EvalRow{}
	for _, r := range rep.Rows {
		if r.Kind != RowRouted {
			byKind[r.Kind] = r
		}
	}
	strong, weak := byKind[RowStrongest], byKind[RowCheapest]
	if strong.Accuracy <= weak.Accuracy || strong.Cost <= 0 {
		return nil, fmt.Errorf("%w: the strongest model is not better than the cheapest on the test set", routing.ErrData)
	}
	c := &CurveReport{
		Models: rep.Models, Strongest: rep.Strongest, Cheapest: rep.Cheapest, XAxis: "cost_share",
		Strong: Operating{strong.Accuracy, strong.Cost}, Weak: Operating{weak.Accuracy, weak.Cost},
		Oracle: Operating{byKind[RowOracle].Accuracy, byKind[RowOracle].Cost},
	}
	two := len(rep.Models) == 2
	if two {
		c.XAxis = "strong_call_share"
	}
	acc, cost := map[string]float64{}, map[string]float64{}
	for _, s := range test {
		for _, m := range rep.Models {
			acc[m] += s.Quality[m] / float64(len(test))
			cost[m] += s.Cost[m]
		}
	}
	pgr := func(a float64) float64 { return (a - weak.Accuracy) / (strong.Accuracy - weak.Accuracy) }
	var routed, random []CurvePoint
	for _, r := range rep.Rows {
		if r.Kind != RowRouted {
			continue
		}
		p := CurvePoint{Param: r.Alpha, Accuracy: r.Accuracy, Cost: r.Cost, Calls: map[string]float64{}}
		q := CurvePoint{Param: r.Alpha, Calls: p.Calls}
		for _, m := range rep.Models {
			share := float64(r.Choices[m]) / float64(rep.Samples)
			p.Calls[m] = share
			q.Accuracy += share * acc[m]
			q.Cost += share * cost[m]
		}
		for _, pt := range []*CurvePoint{&p, &q} {
			pt.CostShare = pt.Cost / strong.Cost
			pt.X = pt.CostShare
			if two {
				pt.X = p.Calls[rep.Strongest]
			}
			pt.PGR = pgr(pt.Accuracy)
		}
		routed, random = append(routed, p), append(random, q)
	}
	weakX := 0.0
	if !two {
		weakX = weak.Cost / strong.Cost
	}
	c.Router = curveOf(routed, weakX)
	c.Random = curveOf(random, weakX)
	return c, nil
}

type xy struct{ x, y float64 }

// curveOf computes the area and crossings of points, anchored by the
// cheapest model at (weakX, 0) and the strongest at (1, 1).
func curveOf(points []CurvePoint, weakX float64) Curve {
	c := Curve{Points: points}
	pts := []xy{{weakX, 0}, {1, 1}}
	for _, p := range points {
		if p.X >= 0 && p.X <= 1 {
			pts = append(pts, xy{p.X, p.PGR})
		}
	}
	slices.SortStableFunc(pts, func(a, b xy) int { return cmp.Compare(a.x, b.x) })
	if pts[0].x > 0 { // below the cheapest model's x nothing is reachable: count it as 0
		pts = append([]xy{{0, 0}}, pts...)
	}
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		c.APGR += (b.x - a.x) * (a.y + b.y) / 2
	}
	xs := make([]float64, 0, len(points))
	for _, p := range points {
		xs = append(xs, p.X)
	}
	slices.Sort(xs)
	for i := 1; i < len(xs); i++ {
		c.MaxGap = max(c.MaxGap, xs[i]-xs[i-1])
	}
	c.CPT50, c.CPT80 = crossing(pts, 0.5), crossing(pts, 0.8)
	return c
}

// crossing is the smallest x at which the polyline through pts (sorted by x)
// reaches y, NaN if it never does.
func crossing(pts []xy, y float64) float64 {
	for i, p := range pts {
		if p.y >= y {
			if i == 0 {
				return p.x
			}
			a := pts[i-1]
			return a.x + (y-a.y)/(p.y-a.y)*(p.x-a.x)
		}
	}
	return math.NaN()
}
