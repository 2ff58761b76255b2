package offline

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"github.com/heddle-gw/heddle/routing"
	"math"
	"slices"
	"strconv"

	"github.com/heddle-gw/heddle/routing/lexical"
)

// Sample is one evaluated prompt: the text to embed and, per model, the
// quality (e.g. 0/1 correctness) and cost (US dollars) it achieved. A model
// absent from a sample's maps did not run on it.
type Sample struct {
	ID     string
	Prompt string
	Task   string // label for per-task reporting (eval name, task type)
	// Turn is the turn type the prompt came from ("" is main), one of the
	// predictor's features.
	Turn    routing.TurnType
	Quality map[string]float64
	Cost    map[string]float64
}

// TrainConfig configures Train.
type TrainConfig struct {
	ID       string
	Revision string
	K        int // clusters (default 16)
	Seed     uint64
	Restarts int // k-means restarts (default 5)
	MaxIter  int // k-means iterations per restart (default 100)
	// Shrinkage is m in q = (n*mean + m*global)/(n+m); 0 disables it.
	Shrinkage float64
	// Scorer is the bundle's scorer kind: routing.ScorerAvengersPro (""),
	// routing.ScorerExpected or routing.ScorerPredictor; the last two have
	// their dial placed on the training queries (see placeDial) with
	// Router's top-p and beta.
	Scorer string
	Router routing.Config
	// Predictor tunes the per-query predictor of ScorerPredictor.
	Predictor PredictorConfig
	// Selection records how Scorer was chosen (see ResolveScorer).
	Selection string
	// Date is recorded as given (keep it fixed for reproducible bundles).
	Date    string
	Sources []string
	Notes   string
	// Progress, when non-nil, is told how far each stage of training has
	// come: StageEmbed per sample, StageKMeans per restart, StageDial once
	// done. It is called on the training goroutine; it must not block long.
	Progress func(stage string, done, total int)
}

// Training stages reported to TrainConfig.Progress.
const (
	StageEmbed  = "embed"
	StageKMeans = "k-means"
	StageDial   = "dial"
)

func (c *TrainConfig) progress(stage string, done, total int) {
	if c.Progress != nil {
		c.Progress(stage, done, total)
	}
}

// Shares of an organisation training job's progress (orgtrain.go): embedding
// the prompts takes the first embedShare percent, k-means the rest up to
// trainShare (the job stores the bundle after).
const (
	embedShare = 40
	trainShare = 95
)

func (c *TrainConfig) defaults() {
	if c.K <= 0 {
		c.K = 16
	}
	if c.Restarts <= 0 {
		c.Restarts = 5
	}
	if c.MaxIter <= 0 {
		c.MaxIter = 100
	}
	if c.ID == "" {
		c.ID = "bundle"
	}
	if c.Revision == "" {
		c.Revision = "1"
	}
}

// Train builds a bundle from samples. A lexical-v1 embedder is first refitted
// on the samples' prompts (its IDF table is learned here and stored in the
// bundle); any other embedder is used as given. The prompts are embedded,
// clustered with KMeans (seed, restarts, lowest inertia), and every cluster
// gets per-model mean quality and cost shrunk toward the model's global mean.
// A ScorerPredictor bundle also gets its per-query predictor (trainPredictor).
// The bundle records emb's id, dimension and fingerprint; BundleEmbedder
// returns the embedder that matches it.
func Train(ctx context.Context, cfg TrainConfig, samples []Sample, emb routing.Embedder) (*routing.Bundle, error) {
	cfg.defaults()
	if len(samples) == 0 {
		return nil, fmt.Errorf("%w: no samples", routing.ErrData)
	}
	models := modelSet(samples)
	if len(models) == 0 {
		return nil, fmt.Errorf("%w: samples score no model", routing.ErrData)
	}
	prompts := make([]string, len(samples))
	for i, s := range samples {
		prompts[i] = s.Prompt
	}
	preambles := learnPreambles(prompts)
	texts := queryTexts(preambles, samples, cfg.Router.MaxEmbedBytes)
	var lexParams *lexical.Params
	if lx, ok := emb.(*lexical.Embedder); ok {
		fitted, err := lx.Fit(texts)
		if err != nil {
			return nil, err
		}
		p := fitted.Params()
		lexParams, emb = &p, fitted
	}
	points, err := embedAll(ctx, emb, texts, func(done int) { cfg.progress(StageEmbed, done, len(samples)) })
	if err != nil {
		return nil, err
	}
	km, err := kmeans(ctx, points, cfg.K, cfg.Seed, cfg.Restarts, cfg.MaxIter, func(done int) { cfg.progress(StageKMeans, done, cfg.Restarts) })
	if err != nil {
		return nil, fmt.Errorf("routing: k-means: %w", err)
	}
	global, clusters := clusterStats(samples, models, km, cfg.Shrinkage)
	b := &routing.Bundle{
		Format:    routing.BundleFormat,
		ID:        cfg.ID,
		Revision:  cfg.Revision,
		Embedder:  routing.EmbedderSpec{ID: emb.ID(), Dim: emb.Dim(), Fingerprint: emb.Fingerprint(), Lexical: lexParams},
		Models:    models,
		Global:    global,
		Clusters:  clusters,
		Preambles: preambles,
		Training: routing.TrainingMeta{
			DataHash: DataHash(samples), Samples: len(samples), Seed: cfg.Seed, K: len(clusters),
			Restarts: cfg.Restarts, Shrinkage: cfg.Shrinkage, Inertia: round(km.Inertia, 6),
			Date: cfg.Date, Sources: cfg.Sources, Notes: cfg.Notes, Selection: cfg.Selection,
		},
	}
	if err := b.Prepare(); err != nil {
		return nil, err
	}
	switch cfg.Scorer {
	case "", routing.ScorerAvengersPro:
	case routing.ScorerExpected:
		cfg.progress(StageDial, 0, 1)
		if err := placeDial(b, emb, points, nil, cfg.Router); err != nil {
			return nil, err
		}
		cfg.progress(StageDial, 1, 1)
	case routing.ScorerPredictor:
		feats := featuresOf(texts, samples)
		clu, err := clusterQualities(b, emb, points, cfg.Router)
		if err != nil {
			return nil, err
		}
		p, err := trainPredictor(ctx, samples, models, points, feats, clu, cfg.Seed, cfg.Predictor)
		if err != nil {
			return nil, err
		}
		b.Scorer, b.Predictor = routing.ScorerPredictor, p
		cfg.progress(StageDial, 0, 1)
		if err := placeDial(b, emb, points, feats, cfg.Router); err != nil {
			return nil, err
		}
		cfg.progress(StageDial, 1, 1)
	default:
		return nil, fmt.Errorf("%w: unknown scorer %q (resolve %q with ResolveScorer first)", routing.ErrUsage, cfg.Scorer, ScorerAuto)
	}
	return b, nil
}

// clusterQualities returns, per training point and model of b (still a
// cluster bundle), the clusters' expected quality as the router weighs them.
func clusterQualities(b *routing.Bundle, emb routing.Embedder, points [][]float32, cfg routing.Config) ([][]float64, error) {
	r, err := routing.NewRouter(b, emb, cfg)
	if err != nil {
		return nil, err
	}
	all := make([]int, len(b.Models))
	for i := range all {
		all[i] = i
	}
	out := make([][]float64, len(points))
	for i, v := range points {
		out[i] = make([]float64, len(all))
		for m, s := range r.ExpectedVec(v, nil, all) {
			out[i][m] = s.Quality
		}
	}
	return out, nil
}

// embedAll embeds every text; done (nil for none) is told the count after
// each one.
func embedAll(ctx context.Context, emb routing.Embedder, texts []string, done func(int)) ([][]float32, error) {
	const progressEvery = 256 // samples between checks of ctx
	points := make([][]float32, len(texts))
	for i, text := range texts {
		if i%progressEvery == 0 && i > 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		v, err := emb.Embed(ctx, text)
		if err != nil {
			return nil, fmt.Errorf("%w: sample %d: %w", routing.ErrEmbed, i, err)
		}
		if len(v) != emb.Dim() {
			return nil, fmt.Errorf("%w: sample %d: %d dimensions, want %d", routing.ErrEmbed, i, len(v), emb.Dim())
		}
		points[i] = v
		if done != nil {
			done(i + 1)
		}
	}
	return points, nil
}

func modelSet(samples []Sample) []string {
	seen := map[string]bool{}
	for _, s := range samples {
		for m := range s.Quality {
			if _, ok := s.Cost[m]; ok {
				seen[m] = true
			}
		}
	}
	models := make([]string, 0, len(seen))
	for m := range seen {
		models = append(models, m)
	}
	slices.Sort(models)
	return models
}

// clusterStats computes global per-model means and per-cluster means shrunk
// toward them: q = (n*mean + m*global)/(n+m), the same for cost.
func clusterStats(samples []Sample, models []string, km KMeansResult, m float64) ([]routing.ModelStats, []routing.Cluster) {
	k := len(km.Centroids)
	type acc struct {
		q, c float64
		n    int
	}
	glob := make([]acc, len(models))
	per := make([][]acc, k)
	for c := range per {
		per[c] = make([]acc, len(models))
	}
	sizes := make([]int, k)
	for i, s := range samples {
		c := km.Assign[i]
		sizes[c]++
		for j, model := range models {
			q, okq := s.Quality[model]
			cost, okc := s.Cost[model]
			if !okq || !okc {
				continue
			}
			glob[j].q += q
			glob[j].c += cost
			glob[j].n++
			per[c][j].q += q
			per[c][j].c += cost
			per[c][j].n++
		}
	}
	global := make([]routing.ModelStats, len(models))
	for j, a := range glob {
		if a.n > 0 {
			global[j] = routing.ModelStats{Quality: round(a.q/float64(a.n), 9), Cost: round(a.c/float64(a.n), 12), N: a.n}
		}
	}
	clusters := make([]routing.Cluster, k)
	for c := range clusters {
		stats := make([]routing.ModelStats, len(models))
		for j, a := range per[c] {
			g := global[j]
			n := float64(a.n)
			if a.n == 0 && m == 0 {
				stats[j] = routing.ModelStats{Quality: g.Quality, Cost: g.Cost}
				continue
			}
			stats[j] = routing.ModelStats{
				Quality: round((a.q+m*g.Quality)/(n+m), 9),
				Cost:    round((a.c+m*g.Cost)/(n+m), 12),
				N:       a.n,
			}
		}
		clusters[c] = routing.Cluster{Centroid: km.Centroids[c], Size: sizes[c], Stats: stats}
	}
	return global, clusters
}

// Shrink is the shrinkage rule: (n*mean + m*global)/(n+m).
func Shrink(mean float64, n int, global, m float64) float64 {
	if float64(n)+m == 0 {
		return global
	}
	return (float64(n)*mean + m*global) / (float64(n) + m)
}

// DataHash is the SHA-256 (hex) of the samples in order: prompt, task and the
// sorted per-model quality and cost.
func DataHash(samples []Sample) string {
	h := sha256.New()
	var b [8]byte
	num := func(f float64) {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(f))
		h.Write(b[:])
	}
	str := func(s string) {
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{':'})
		h.Write([]byte(s))
	}
	for _, s := range samples {
		str(s.Prompt)
		str(s.Task)
		models := make([]string, 0, len(s.Quality))
		for m := range s.Quality {
			models = append(models, m)
		}
		slices.Sort(models)
		for _, m := range models {
			str(m)
			num(s.Quality[m])
			num(s.Cost[m])
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// round keeps digits significant decimal places so bundle files stay small
// and stable.
func round(f float64, digits int) float64 {
	if f == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', digits, 64), 64)
	return v
}
