package routing

import (
	"math"
	"slices"
)

// Scorer defaults (SPEC §6).
const (
	DefaultTopP = 4
	DefaultBeta = 9.0
)

// ClusterWeight is one of the query's nearest clusters.
type ClusterWeight struct {
	Cluster    int     `json:"cluster"`
	Similarity float64 `json:"similarity"` // cosine similarity to the centroid
	Weight     float64 `json:"weight"`     // softmax(-beta * (1 - similarity)) over the top p
}

// ModelScore is one eligible model's blended score, with the weighted raw
// quality and cost behind it.
type ModelScore struct {
	Model   string  `json:"model"`
	Score   float64 `json:"score"`
	Quality float64 `json:"quality"` // weighted mean quality over the top clusters
	Cost    float64 `json:"cost"`    // weighted mean cost (US dollars per query)
}

// scoreVec runs the Avengers-Pro scorer for one query vector over the eligible
// model indices (into b.Models). In each of the top-p clusters quality and
// cost are min-max normalised over the eligible models; a constant column
// normalises to quality 1 and cost 0 (no model is better or cheaper there, so
// the column does not separate them). score = alpha*q + (1-alpha)*(1-c),
// summed with the cluster weights. The winner is the highest score; ties (within
// 1e-12) go to the lower weighted cost, then to the lower model id.
//
// A zero query vector (no text) has no nearest cluster: every cluster is used,
// weighted by its training size.
func scoreVec(b *Bundle, vec []float32, feats *[QueryFeatureCount]float64, alpha float64, eligible []int, topP int, beta float64) (int, []ClusterWeight, []ModelScore) {
	switch b.Scorer {
	case ScorerExpected:
		return scoreExpected(b, vec, alpha, eligible, topP, beta)
	case ScorerPredictor:
		return scorePredictor(b, vec, feats, alpha, eligible, topP, beta)
	}
	clusters := nearestClusters(b, vec, topP, beta)
	scores := make([]ModelScore, len(eligible))
	for i, mi := range eligible {
		scores[i].Model = b.Models[mi]
	}
	for _, cw := range clusters {
		stats := b.Clusters[cw.Cluster].Stats
		qmin, qmax := math.Inf(1), math.Inf(-1)
		cmin, cmax := math.Inf(1), math.Inf(-1)
		for _, mi := range eligible {
			s := stats[mi]
			qmin, qmax = min(qmin, s.Quality), max(qmax, s.Quality)
			cmin, cmax = min(cmin, s.Cost), max(cmax, s.Cost)
		}
		for i, mi := range eligible {
			s := stats[mi]
			qn, cn := 1.0, 0.0
			if qmax > qmin {
				qn = (s.Quality - qmin) / (qmax - qmin)
			}
			if cmax > cmin {
				cn = (s.Cost - cmin) / (cmax - cmin)
			}
			scores[i].Score += cw.Weight * (alpha*qn + (1-alpha)*(1-cn))
			scores[i].Quality += cw.Weight * s.Quality
			scores[i].Cost += cw.Weight * s.Cost
		}
	}
	return eligible[bestOf(scores)], clusters, scores
}

// scoreExpected is ScorerExpected: the weighted quality and cost of each
// eligible model over the top-p clusters, score = quality - lambda*cost with
// lambda = Lambda(b.Dial, alpha); ties as in scoreVec.
func scoreExpected(b *Bundle, vec []float32, alpha float64, eligible []int, topP int, beta float64) (int, []ClusterWeight, []ModelScore) {
	clusters := nearestClusters(b, vec, topP, beta)
	scores := expected(b, clusters, eligible)
	lambda := Lambda(b.Dial, alpha)
	for i := range scores {
		scores[i].Score = scores[i].Quality - lambda*scores[i].Cost
	}
	return eligible[bestOf(scores)], clusters, scores
}

// expected returns each eligible model's quality and cost weighted over
// clusters (Score left 0).
func expected(b *Bundle, clusters []ClusterWeight, eligible []int) []ModelScore {
	scores := make([]ModelScore, len(eligible))
	for i, mi := range eligible {
		scores[i].Model = b.Models[mi]
		for _, cw := range clusters {
			s := b.Clusters[cw.Cluster].Stats[mi]
			scores[i].Quality += cw.Weight * s.Quality
			scores[i].Cost += cw.Weight * s.Cost
		}
	}
	return scores
}

func bestOf(scores []ModelScore) int {
	best := 0
	for i := 1; i < len(scores); i++ {
		if better(scores[i], scores[best]) {
			best = i
		}
	}
	return best
}

func better(a, b ModelScore) bool {
	const eps = 1e-12
	switch {
	case a.Score > b.Score+eps:
		return true
	case a.Score < b.Score-eps:
		return false
	case a.Cost != b.Cost:
		return a.Cost < b.Cost
	}
	return a.Model < b.Model
}

// nearestClusters returns the top-p clusters by cosine similarity with softmax
// weights; see scoreVec for the zero-vector case.
func nearestClusters(b *Bundle, vec []float32, topP int, beta float64) []ClusterWeight {
	if topP <= 0 {
		topP = DefaultTopP
	}
	all := make([]ClusterWeight, len(b.Clusters))
	zero := true
	for _, x := range vec {
		if x != 0 {
			zero = false
			break
		}
	}
	if zero {
		total := 0
		for _, c := range b.Clusters {
			total += c.Size
		}
		for i, c := range b.Clusters {
			w := 1 / float64(len(b.Clusters))
			if total > 0 {
				w = float64(c.Size) / float64(total)
			}
			all[i] = ClusterWeight{Cluster: i, Weight: w}
		}
		return all
	}
	for i := range b.Clusters {
		all[i] = ClusterWeight{Cluster: i, Similarity: float64(Similarity(vec, b.Clusters[i].Centroid))}
	}
	slices.SortStableFunc(all, func(x, y ClusterWeight) int {
		switch {
		case x.Similarity > y.Similarity:
			return -1
		case x.Similarity < y.Similarity:
			return 1
		}
		return 0
	})
	top := all[:min(topP, len(all))]
	// softmax(-beta*(1-s)) = softmax(beta*s); subtract the max for stability.
	maxS := top[0].Similarity
	var sum float64
	for i := range top {
		top[i].Weight = math.Exp(beta * (top[i].Similarity - maxS))
		sum += top[i].Weight
	}
	for i := range top {
		top[i].Weight /= sum
	}
	return top
}

// ExpectedVec returns the expected quality and cost of the eligible models
// (indices into Bundle().Models) for an embedded query with features feats:
// weighted over its top-p clusters as ScorerExpected weighs them, the quality
// the predictor's for a ScorerPredictor bundle (Score is 0). Training uses it
// to place the dial.
func (r *Router) ExpectedVec(vec []float32, feats *[QueryFeatureCount]float64, eligible []int) []ModelScore {
	return estimates(r.bundle, nearestClusters(r.bundle, vec, r.cfg.TopP, r.cfg.Beta), vec, feats, eligible)
}

// ChooseVec scores an already embedded query with features feats over
// eligible model indices (into Bundle().Models) at alpha and returns the
// winner's index, without the explanation. Offline evaluation embeds each
// query once and sweeps alpha.
func (r *Router) ChooseVec(vec []float32, feats *[QueryFeatureCount]float64, alpha float64, eligible []int) int {
	best, _, _ := scoreVec(r.bundle, vec, feats, alpha, eligible, r.cfg.TopP, r.cfg.Beta)
	return best
}
