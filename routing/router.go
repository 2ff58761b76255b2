package routing

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// Config tunes the scorer. Zero values take the defaults.
type Config struct {
	TopP         int           // nearest clusters used (DefaultTopP)
	Beta         float64       // softmax sharpness (DefaultBeta)
	EmbedTimeout time.Duration // DefaultEmbedTimeout
	// MaxEmbedBytes keeps only the last bytes of Query.Text after the
	// bundle's preamble (DefaultMaxEmbedBytes), whatever the caller passes
	// (see Bundle.QueryText).
	MaxEmbedBytes int
	// Embedder is the operator's embedder (HEDDLE_EMBEDDER) that
	// organisation bundles not trained with lexical-v1 run with when their
	// fingerprint matches (BundleEmbedder); nil refuses such bundles.
	Embedder Embedder
}

func (c Config) withDefaults() Config {
	if c.TopP <= 0 {
		c.TopP = DefaultTopP
	}
	if c.Beta <= 0 {
		c.Beta = DefaultBeta
	}
	if c.EmbedTimeout <= 0 {
		c.EmbedTimeout = DefaultEmbedTimeout
	}
	if c.MaxEmbedBytes <= 0 {
		c.MaxEmbedBytes = DefaultMaxEmbedBytes
	}
	return c
}

// Router decides which model serves a turn. It is immutable and safe for
// concurrent use; a nil *Router fails closed with ErrNoBundle.
type Router struct {
	bundle *Bundle
	emb    Embedder
	cfg    Config
}

// NewRouter returns a router over b using emb. It returns an error wrapping
// ErrUnavailable and ErrNoBundle when b is nil, and ErrUnavailable and
// ErrEmbedderMismatch when emb is not the embedder b was trained with.
func NewRouter(b *Bundle, emb Embedder, cfg Config) (*Router, error) {
	if b == nil {
		return nil, unavailable(ErrNoBundle)
	}
	if b.index == nil { // built by hand rather than by LoadBundle or Train
		if err := b.Prepare(); err != nil {
			return nil, unavailable(err)
		}
	}
	if err := b.CheckEmbedder(emb); err != nil {
		return nil, unavailable(err)
	}
	return &Router{bundle: b, emb: emb, cfg: cfg.withDefaults()}, nil
}

// Bundle returns the router's bundle.
func (r *Router) Bundle() *Bundle { return r.bundle }

// Embedder returns the router's embedder.
func (r *Router) Embedder() Embedder { return r.emb }

// Query is one routing question.
type Query struct {
	// Text is the user-authored text to route by (see EmbeddingText, with
	// MaxQueryBytes, and Bundle.QueryText).
	Text string
	// Alpha is the quality/cost dial in [0, 1]: 1 is quality only, 0 cost only.
	Alpha float64
	// Eligible lists the candidate model ids (see Eligible).
	Eligible []string
	// Drops are eligibility drops to carry into the explanation.
	Drops []Drop
	// Turn is the turn's type, one of a predictor bundle's features ("" is
	// main).
	Turn TurnType
}

// Decision is the router's choice and its explanation.
type Decision struct {
	Model          string          `json:"model"`
	Alpha          float64         `json:"alpha"`
	BundleID       string          `json:"bundle_id"`
	BundleRevision string          `json:"bundle_revision"`
	EmbedderID     string          `json:"embedder_id"`
	Clusters       []ClusterWeight `json:"clusters"`
	Scores         []ModelScore    `json:"scores"`
	Drops          []Drop          `json:"drops,omitempty"`
	EmbedLatency   time.Duration   `json:"embed_latency_ns"`
}

// Decide embeds q.Text and scores the eligible models with the bundle's
// scorer kind (Avengers-Pro, expected or predictor; see scoreVec). Eligible models the bundle does not know are dropped
// with DropNotInBundle. It fails closed: every error wraps ErrUnavailable and
// the cause (ErrNoBundle, ErrEmbed, ErrEmbedTimeout, ErrNoEligible).
func (r *Router) Decide(ctx context.Context, q Query) (Decision, error) {
	if r == nil || r.bundle == nil {
		return Decision{}, unavailable(ErrNoBundle)
	}
	if q.Alpha < 0 || q.Alpha > 1 || q.Alpha != q.Alpha {
		return Decision{}, fmt.Errorf("%w: alpha %v outside [0, 1]", ErrUsage, q.Alpha)
	}
	d := Decision{
		Alpha:          q.Alpha,
		BundleID:       r.bundle.ID,
		BundleRevision: r.bundle.Revision,
		EmbedderID:     r.emb.ID(),
		Drops:          append([]Drop(nil), q.Drops...),
	}
	eligible := make([]int, 0, len(q.Eligible))
	for _, m := range q.Eligible {
		if i, ok := r.bundle.index[m]; ok {
			if !slices.Contains(eligible, i) {
				eligible = append(eligible, i)
			}
		} else {
			d.Drops = append(d.Drops, Drop{Model: m, Reason: DropNotInBundle})
		}
	}
	if len(eligible) == 0 {
		return d, unavailable(ErrNoEligible)
	}
	start := time.Now()
	text := r.bundle.QueryText(q.Text, r.cfg.MaxEmbedBytes)
	vec, buf, err := embedPooled(ctx, r.emb, text, r.cfg.EmbedTimeout)
	d.EmbedLatency = time.Since(start)
	if err != nil {
		return d, unavailable(err)
	}
	defer releaseVec(buf) // the decision keeps no reference to vec
	var feats [QueryFeatureCount]float64
	if r.bundle.Scorer == ScorerPredictor {
		QueryFeatures(text, q.Turn, &feats)
	}
	best, clusters, scores := scoreVec(r.bundle, vec, &feats, q.Alpha, eligible, r.cfg.TopP, r.cfg.Beta)
	d.Model = r.bundle.Models[best]
	d.Clusters = clusters
	d.Scores = scores
	return d, nil
}
