package routing

import (
	"errors"
	"fmt"
	"math"
)

// Predictor is the per-query model of a ScorerPredictor bundle: for every
// model, an L2-regularised logistic regression from the query's embedding
// and its standardised QueryFeatures to the probability that the model
// answers well, followed by a Platt calibration fitted on held-out training
// data. Quality is mapped back to the training scores' units as
// QMin + p*(QMax-QMin).
type Predictor struct {
	// FeatureVersion is the QueryFeatures layout the weights expect.
	FeatureVersion int `json:"feature_version"`
	// Mean and Scale standardise the cheap features: (f-Mean)/Scale.
	Mean  []float64 `json:"mean"`
	Scale []float64 `json:"scale"`
	// Shared is the difficulty regression shared by all models, trained on
	// every model's results at once: Dim embedding weights, then
	// QueryFeatureCount feature weights, then the bias. Its logit is the
	// shared difficulty d.
	Shared []float32 `json:"shared"`
	// Weights, aligned with Bundle.Models: Dim embedding weights, then
	// QueryFeatureCount feature weights, then the weight of d, then the
	// bias.
	Weights [][]float32 `json:"weights"`
	// CalA and CalB, aligned with Models: p = sigmoid(CalA*z + CalB) for the
	// regression's logit z.
	CalA []float64 `json:"cal_a"`
	CalB []float64 `json:"cal_b"`
	// QMin and QMax are the range of the training scores (0 and 1 for
	// correctness data).
	QMin float64 `json:"q_min"`
	QMax float64 `json:"q_max"`
	// Blend, aligned with Models (absent: 1 for every model), shrinks the
	// per-query estimate toward the clusters' expected quality: quality =
	// Blend*predicted + (1-Blend)*clusters. Training chooses it per model on
	// its held-out part of the training data.
	Blend []float64 `json:"blend,omitempty"`
}

// check validates p for a bundle of models models and dim dimensions.
func (p *Predictor) check(models, dim int) error {
	if p == nil {
		return errors.New("a predictor bundle needs its predictor")
	}
	if p.FeatureVersion != FeatureVersion {
		return fmt.Errorf("predictor feature version %d, this binary computes %d", p.FeatureVersion, FeatureVersion)
	}
	if len(p.Mean) != QueryFeatureCount || len(p.Scale) != QueryFeatureCount {
		return fmt.Errorf("predictor standardises %d/%d features, want %d", len(p.Mean), len(p.Scale), QueryFeatureCount)
	}
	for i := range p.Scale {
		if !finite(p.Mean[i]) || !finite(p.Scale[i]) || p.Scale[i] <= 0 {
			return fmt.Errorf("predictor feature %d has a bad mean or scale", i)
		}
	}
	if len(p.Weights) != models || len(p.CalA) != models || len(p.CalB) != models {
		return fmt.Errorf("predictor has weights for %d models, want %d", len(p.Weights), models)
	}
	if len(p.Shared) != dim+QueryFeatureCount+1 {
		return fmt.Errorf("predictor has %d shared weights, want %d", len(p.Shared), dim+QueryFeatureCount+1)
	}
	for _, x := range p.Shared {
		if !finite(float64(x)) {
			return errors.New("predictor has a non-finite shared weight")
		}
	}
	for m, w := range p.Weights {
		if len(w) != dim+QueryFeatureCount+2 {
			return fmt.Errorf("predictor model %d has %d weights, want %d", m, len(w), dim+QueryFeatureCount+2)
		}
		for _, x := range w {
			if !finite(float64(x)) {
				return fmt.Errorf("predictor model %d has a non-finite weight", m)
			}
		}
		if !finite(p.CalA[m]) || !finite(p.CalB[m]) {
			return fmt.Errorf("predictor model %d has a non-finite calibration", m)
		}
	}
	if len(p.Blend) != 0 && len(p.Blend) != models {
		return fmt.Errorf("predictor has blend weights for %d models, want %d", len(p.Blend), models)
	}
	for m, w := range p.Blend {
		if !(w >= 0 && w <= 1) {
			return fmt.Errorf("predictor model %d has blend weight %v outside [0, 1]", m, w)
		}
	}
	if !finite(p.QMin) || !finite(p.QMax) || p.QMax < p.QMin {
		return errors.New("predictor quality range is not finite and ordered")
	}
	return nil
}

// Standardise returns the query's features as the weights expect them:
// (f-Mean)/Scale.
func (p *Predictor) Standardise(feats *[QueryFeatureCount]float64) (z [QueryFeatureCount]float64) {
	for j, f := range feats {
		z[j] = (f - p.Mean[j]) / p.Scale[j]
	}
	return z
}

// linear is w's embedding and feature terms for the query (no bias); z
// holds the standardised features.
func linear(w []float32, vec []float32, z *[QueryFeatureCount]float64) float64 {
	dim := len(vec)
	we := w[:dim] // one bounds check for the loop
	// Four partial sums: independent additions pipeline.
	var e0, e1, e2, e3 float32
	i := 0
	for ; i+4 <= dim; i += 4 {
		e0 += we[i] * vec[i]
		e1 += we[i+1] * vec[i+1]
		e2 += we[i+2] * vec[i+2]
		e3 += we[i+3] * vec[i+3]
	}
	for ; i < dim; i++ {
		e0 += we[i] * vec[i]
	}
	s := float64(e0 + e1 + e2 + e3)
	for j, f := range z {
		s += float64(w[dim+j]) * f
	}
	return s
}

// Difficulty is the shared regression's logit d for the query (z from
// Standardise).
func (p *Predictor) Difficulty(vec []float32, z *[QueryFeatureCount]float64) float64 {
	return linear(p.Shared, vec, z) + float64(p.Shared[len(p.Shared)-1])
}

// Logit is model m's uncalibrated logit for the query, given its
// difficulty d (z from Standardise).
func (p *Predictor) Logit(m int, vec []float32, z *[QueryFeatureCount]float64, d float64) float64 {
	w := p.Weights[m]
	return linear(w, vec, z) + float64(w[len(w)-2])*d + float64(w[len(w)-1])
}

// Quality is model m's calibrated expected quality for the query with
// difficulty d, in the training scores' units (z from Standardise).
func (p *Predictor) Quality(m int, vec []float32, z *[QueryFeatureCount]float64, d float64) float64 {
	prob := Sigmoid(p.CalA[m]*p.Logit(m, vec, z, d) + p.CalB[m])
	return p.QMin + prob*(p.QMax-p.QMin)
}

// Sigmoid is the logistic function, stable for large |z|.
func Sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// scorePredictor is ScorerPredictor: each eligible model's quality is the
// predictor's calibrated estimate for this query and its cost the weighted
// mean over the top-p clusters; score = quality - lambda(alpha)*cost; ties
// as in scoreVec.
func scorePredictor(b *Bundle, vec []float32, feats *[QueryFeatureCount]float64, alpha float64, eligible []int, topP int, beta float64) (int, []ClusterWeight, []ModelScore) {
	clusters := nearestClusters(b, vec, topP, beta)
	scores := estimates(b, clusters, vec, feats, eligible)
	lambda := Lambda(b.Dial, alpha)
	for i := range scores {
		scores[i].Score = scores[i].Quality - lambda*scores[i].Cost
	}
	return eligible[bestOf(scores)], clusters, scores
}

// estimates is expected with, for a predictor bundle, the predictor's
// per-query quality (blended with the clusters' mean by Predictor.Blend) in
// place of the clusters' mean.
func estimates(b *Bundle, clusters []ClusterWeight, vec []float32, feats *[QueryFeatureCount]float64, eligible []int) []ModelScore {
	scores := expected(b, clusters, eligible)
	if b.Scorer == ScorerPredictor {
		z := b.Predictor.Standardise(feats)
		d := b.Predictor.Difficulty(vec, &z)
		for i, mi := range eligible {
			q := b.Predictor.Quality(mi, vec, &z, d)
			if b.Predictor.Blend != nil {
				w := b.Predictor.Blend[mi]
				q = w*q + (1-w)*scores[i].Quality
			}
			scores[i].Quality = q
		}
	}
	return scores
}
