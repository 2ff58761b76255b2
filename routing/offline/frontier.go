package offline

import (
	"cmp"
	"math"
	"slices"
)

// FrontierPoint is a vertex of a cost/accuracy frontier: total cost in US
// dollars and mean quality per query.
type FrontierPoint struct {
	Cost     float64 `json:"cost"`
	Accuracy float64 `json:"accuracy"`
}

// TaskFrontier is the best accuracy for each total cost that any router can
// reach when all it knows of a query is its task: it may send each task to
// any mix of models (a fraction of the task's queries to each), but it cannot
// tell one query of a task from another. It is computed from the samples' own
// per-task results, so on a test split it is an upper bound (like the oracle),
// not a router: routed accuracy above it at some cost needs a per-query signal.
//
// Per task, the models that scored every query of the task give (total
// quality, total cost) points; the task starts on its cheapest point and
// climbs its upper convex hull. Across tasks the hull steps are taken in order
// of quality gained per dollar, which is optimal for this fractional choice.
// The vertices returned start at all-cheapest and end at the most accurate mix.
func TaskFrontier(samples []Sample) []FrontierPoint {
	if len(samples) == 0 {
		return nil
	}
	type point struct {
		q, c float64
		n    int // queries of the task the model scored
	}
	byTask := map[string]map[string]*point{}
	counts := map[string]int{}
	for _, s := range samples {
		pts := byTask[s.Task]
		if pts == nil {
			pts = map[string]*point{}
			byTask[s.Task] = pts
		}
		counts[s.Task]++
		for m, q := range s.Quality {
			c, ok := s.Cost[m]
			if !ok {
				continue
			}
			p := pts[m]
			if p == nil {
				p = &point{}
				pts[m] = p
			}
			p.q += q
			p.c += c
			p.n++
		}
	}
	type step struct{ dq, dc float64 }
	var steps []step
	var q0, c0 float64
	tasks := make([]string, 0, len(byTask))
	for t := range byTask {
		tasks = append(tasks, t)
	}
	slices.Sort(tasks)
	for _, t := range tasks {
		var pts []point
		for _, p := range byTask[t] {
			if p.n == counts[t] {
				pts = append(pts, *p)
			}
		}
		if len(pts) == 0 {
			return nil // a task no model scored fully has no frontier
		}
		slices.SortFunc(pts, func(a, b point) int { // map order must not matter
			if a.c != b.c {
				return cmp.Compare(a.c, b.c)
			}
			return cmp.Compare(b.q, a.q)
		})
		cur := pts[0] // the cheapest, the most accurate among equally cheap
		q0, c0 = q0+cur.q, c0+cur.c
		for {
			best, bestEff := point{}, math.Inf(-1)
			for _, p := range pts {
				if p.c > cur.c && p.q > cur.q {
					if eff := (p.q - cur.q) / (p.c - cur.c); eff > bestEff {
						best, bestEff = p, eff
					}
				}
			}
			if math.IsInf(bestEff, -1) {
				break
			}
			steps = append(steps, step{dq: best.q - cur.q, dc: best.c - cur.c})
			cur = best
		}
	}
	slices.SortStableFunc(steps, func(a, b step) int {
		ea, eb := a.dq/a.dc, b.dq/b.dc
		switch {
		case ea > eb:
			return -1
		case ea < eb:
			return 1
		}
		return 0
	})
	n := float64(len(samples))
	out := []FrontierPoint{{Cost: c0, Accuracy: q0 / n}}
	for _, s := range steps {
		q0, c0 = q0+s.dq, c0+s.dc
		out = append(out, FrontierPoint{Cost: c0, Accuracy: q0 / n})
	}
	return out
}

// FrontierAccuracy is the frontier's accuracy at total cost c, linear between
// vertices; false when c is below the frontier's cheapest point.
func FrontierAccuracy(f []FrontierPoint, c float64) (float64, bool) {
	if len(f) == 0 || c < f[0].Cost {
		return 0, false
	}
	for i := 1; i < len(f); i++ {
		if c < f[i].Cost {
			a, b := f[i-1], f[i]
			return a.Accuracy + (b.Accuracy-a.Accuracy)*(c-a.Cost)/(b.Cost-a.Cost), true
		}
	}
	return f[len(f)-1].Accuracy, true
}
