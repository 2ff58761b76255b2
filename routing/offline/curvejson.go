package offline

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/heddle-gw/heddle/routing"
)

// CurveSummary is `heddle bundle eval --json`: the seeds' curves averaged
// point by point (APGR, CPT50 and CPT80 are means over the seeds; a CPT is
// null when some seed never reaches it; MaxGap is the widest over seeds).
type CurveSummary struct {
	Scorer      string        `json:"scorer"`
	Seeds       []uint64      `json:"seeds"`
	TestQueries int           `json:"test_queries"`
	Models      []string      `json:"models"`
	Strongest   string        `json:"strongest"`
	Cheapest    string        `json:"cheapest"`
	XAxis       string        `json:"x_axis"`
	Strong      Operating     `json:"strong"`
	Weak        Operating     `json:"weak"`
	Oracle      Operating     `json:"oracle"`
	Router      CurveAverages `json:"router"`
	Random      CurveAverages `json:"random"`
}

// CurveAverages is a Curve averaged over seeds.
type CurveAverages struct {
	Points    []CurvePoint `json:"points"`
	APGR      float64      `json:"apgr"`
	APGRSD    float64      `json:"apgr_sd"`
	APGRSeeds []float64    `json:"apgr_seeds"`
	CPT50     *float64     `json:"cpt50"`
	CPT80     *float64     `json:"cpt80"`
	MaxGap    float64      `json:"max_gap"`
}

// SummariseCurves averages per-seed curve reports of one test set.
func SummariseCurves(scorer string, seeds []uint64, samples int, reps []*CurveReport) (*CurveSummary, error) {
	if len(reps) == 0 {
		return nil, fmt.Errorf("%w: no curves", routing.ErrData)
	}
	f := reps[0]
	s := &CurveSummary{
		Scorer: scorer, Seeds: seeds, TestQueries: samples, Models: f.Models, Strongest: f.Strongest, Cheapest: f.Cheapest,
		XAxis: f.XAxis, Strong: f.Strong, Weak: f.Weak, Oracle: f.Oracle,
	}
	var routers, randoms []Curve
	for _, r := range reps {
		if len(r.Router.Points) != len(f.Router.Points) {
			return nil, fmt.Errorf("%w: curves have different layouts", routing.ErrData)
		}
		routers, randoms = append(routers, r.Router), append(randoms, r.Random)
	}
	s.Router, s.Random = averageCurves(routers), averageCurves(randoms)
	return s, nil
}

func averageCurves(cs []Curve) CurveAverages {
	n := float64(len(cs))
	var a CurveAverages
	for i, p0 := range cs[0].Points {
		p := CurvePoint{Param: p0.Param, Calls: map[string]float64{}}
		for _, c := range cs {
			q := c.Points[i]
			p.Accuracy += q.Accuracy / n
			p.Cost += q.Cost / n
			p.CostShare += q.CostShare / n
			p.X += q.X / n
			p.PGR += q.PGR / n
			for m, v := range q.Calls {
				p.Calls[m] += v / n
			}
		}
		a.Points = append(a.Points, p)
	}
	var cpt50, cpt80 []float64
	for _, c := range cs {
		a.APGRSeeds = append(a.APGRSeeds, c.APGR)
		a.MaxGap = max(a.MaxGap, c.MaxGap)
		cpt50, cpt80 = append(cpt50, c.CPT50), append(cpt80, c.CPT80)
	}
	a.APGR, a.APGRSD = meanSD(a.APGRSeeds)
	a.CPT50, a.CPT80 = meanOrNil(cpt50), meanOrNil(cpt80)
	return a
}

func meanOrNil(v []float64) *float64 {
	var sum float64
	for _, x := range v {
		if math.IsNaN(x) {
			return nil
		}
		sum += x
	}
	m := sum / float64(len(v))
	return &m
}

// WriteJSON writes s as one indented JSON object.
func (s *CurveSummary) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s)
}

// WriteLine prints the curve's headline numbers in one line.
func (s *CurveSummary) WriteLine(w io.Writer) error {
	cpt := func(p *float64) string {
		if p == nil {
			return "never"
		}
		return fmt.Sprintf("%.3f", *p)
	}
	_, err := fmt.Fprintf(w, "\nAPGR (x = %s): %.3f ± %.3f (random router at the same call shares %.3f); CPT50 %s, CPT80 %s; widest step between dial points %.3f\n",
		s.XAxis, s.Router.APGR, s.Router.APGRSD, s.Random.APGR, cpt(s.Router.CPT50), cpt(s.Router.CPT80), s.Router.MaxGap)
	return err
}
