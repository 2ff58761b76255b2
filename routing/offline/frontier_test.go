package offline

import (
	"math"
	"testing"
)

func frontierSample(task string, q, c map[string]float64) Sample {
	return Sample{Task: task, Quality: q, Cost: c}
}

// The frontier of a hand-built set. Task A (2 queries): z (0 right, $1), x (1
// right, $2), w (1.5, $5: under the hull), y (2 right, $6), and v, which
// answered only the first query and so cannot be used for the task. Task B (1
// query): x (0, $1), y (1, $5). Start: A on z, B on x = (0 right, $2). Steps by
// quality per dollar: A z->x 1/1, A x->y 1/4, B x->y 1/4 (task order on ties).
func TestTaskFrontier(t *testing.T) {
	samples := []Sample{
		frontierSample("A",
			map[string]float64{"x": 1, "y": 1, "z": 0, "w": 1, "v": 1},
			map[string]float64{"x": 1, "y": 3, "z": 0.5, "w": 2.5, "v": 0}),
		frontierSample("A",
			map[string]float64{"x": 0, "y": 1, "z": 0, "w": 0.5},
			map[string]float64{"x": 1, "y": 3, "z": 0.5, "w": 2.5}),
		frontierSample("B",
			map[string]float64{"x": 0, "y": 1},
			map[string]float64{"x": 1, "y": 5}),
	}
	got := TaskFrontier(samples)
	want := []FrontierPoint{{2, 0}, {3, 1.0 / 3}, {7, 2.0 / 3}, {11, 1}}
	if len(got) != len(want) {
		t.Fatalf("frontier %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(got[i].Cost-want[i].Cost) > 1e-12 || math.Abs(got[i].Accuracy-want[i].Accuracy) > 1e-12 {
			t.Fatalf("vertex %d = %v, want %v (all %v)", i, got[i], want[i], got)
		}
	}
	for _, c := range []struct {
		cost, acc float64
		ok        bool
	}{
		{1.9, 0, false},
		{2, 0, true},
		{5, 0.5, true}, // half way from (3, 1/3) to (7, 2/3)
		{11, 1, true},
		{20, 1, true},
	} {
		acc, ok := FrontierAccuracy(got, c.cost)
		if ok != c.ok || math.Abs(acc-c.acc) > 1e-12 {
			t.Errorf("FrontierAccuracy(%v) = %v, %v; want %v, %v", c.cost, acc, ok, c.acc, c.ok)
		}
	}
	if f := TaskFrontier(nil); f != nil {
		t.Errorf("empty input: %v", f)
	}
}
