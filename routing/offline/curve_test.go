package offline

import (
	"math"
	"testing"
)

// TestCurveOfTwoModels: two test queries; strong is right on both, weak on
// the first. Router points: alpha 0 all weak (x 0, PGR 0), alpha 0.5 strong on
// the second query only (x 0.5, PGR 1), alpha 1 all strong (x 1, PGR 1). The
// area is 0.25 + 0.5 = 0.75, PGR 0.5 is crossed at x 0.25 and 0.8 at 0.4. The
// random router at the same shares has PGR = x: area 0.5.
func TestCurveOfTwoModels(t *testing.T) {
	test := []Sample{
		{Quality: map[string]float64{"s": 1, "w": 1}, Cost: map[string]float64{"s": 1, "w": 0.1}},
		{Quality: map[string]float64{"s": 1, "w": 0}, Cost: map[string]float64{"s": 1, "w": 0.1}},
	}
	rep := &EvalReport{Samples: 2, Models: []string{"s", "w"}, Strongest: "s", Cheapest: "w", Rows: []EvalRow{
		{Kind: RowStrongest, Model: "s", Accuracy: 1, Cost: 2},
		{Kind: RowCheapest, Model: "w", Accuracy: 0.5, Cost: 0.2},
		{Kind: RowOracle, Accuracy: 1, Cost: 1.1},
		{Kind: RowRouted, Alpha: 0, Accuracy: 0.5, Cost: 0.2, Choices: map[string]int{"w": 2}},
		{Kind: RowRouted, Alpha: 0.5, Accuracy: 1, Cost: 1.1, Choices: map[string]int{"w": 1, "s": 1}},
		{Kind: RowRouted, Alpha: 1, Accuracy: 1, Cost: 2, Choices: map[string]int{"s": 2}},
	}}
	c, err := CurveOf(rep, test)
	if err != nil {
		t.Fatal(err)
	}
	if c.XAxis != "strong_call_share" || c.Oracle != (Operating{1, 1.1}) || c.Strong != (Operating{1, 2}) || c.Weak != (Operating{0.5, 0.2}) {
		t.Fatalf("report %+v", c)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	r := c.Router
	if !near(r.APGR, 0.75) || !near(r.CPT50, 0.25) || !near(r.CPT80, 0.4) || !near(r.MaxGap, 0.5) {
		t.Fatalf("router curve apgr %v cpt50 %v cpt80 %v gap %v", r.APGR, r.CPT50, r.CPT80, r.MaxGap)
	}
	mid := r.Points[1]
	if !near(mid.X, 0.5) || !near(mid.PGR, 1) || !near(mid.CostShare, 0.55) || mid.Calls["s"] != 0.5 || mid.Calls["w"] != 0.5 {
		t.Fatalf("mid point %+v", mid)
	}
	if !near(c.Random.APGR, 0.5) || !near(c.Random.Points[1].Accuracy, 0.75) {
		t.Fatalf("random curve %+v", c.Random)
	}
	s, err := SummariseCurves("expected", []uint64{1, 2}, 2, []*CurveReport{c, c})
	if err != nil || !near(s.Router.APGR, 0.75) || s.Router.APGRSD != 0 || s.Router.CPT50 == nil || !near(*s.Router.CPT50, 0.25) {
		t.Fatalf("summary %+v, %v", s, err)
	}
}

// TestTrainExpectedDial: a bundle trained with the expected scorer carries a
// dial whose every position is a distinct operating point on its training
// data: spend rises with alpha from all-cheap to all-best.
func TestTrainExpectedDial(t *testing.T) {
	var samples []Sample
	for i := range 40 {
		p := "x" + string(rune('a'+i%20))
		if i%2 == 1 {
			p = "y" + string(rune('a'+i%20))
		}
		q := 0.2 + 0.6*float64(i%10)/10
		samples = append(samples, Sample{ID: p, Prompt: p, Task: p[:1],
			Quality: map[string]float64{"A": q, "B": 0.2}, Cost: map[string]float64{"A": 1 + float64(i%3), "B": 0.1}})
	}
	b, err := Train(t.Context(), TrainConfig{K: 2, Seed: 1, Scorer: "expected"}, samples, mapEmbedder{})
	if err != nil {
		t.Fatal(err)
	}
	if b.Scorer != "expected" || len(b.Dial) != DialKnots || b.Dial[DialKnots-1] != 0 || b.Dial[0] <= b.Dial[1] {
		t.Fatalf("scorer %q dial %v", b.Scorer, b.Dial)
	}
	if _, err := Train(t.Context(), TrainConfig{K: 2, Seed: 1, Scorer: "nope"}, samples, mapEmbedder{}); err == nil {
		t.Fatal("unknown scorer accepted")
	}
}
