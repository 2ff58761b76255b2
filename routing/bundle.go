package routing

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/heddle-gw/heddle/routing/lexical"
)

// BundleFormat is the bundle file format version this package reads and writes.
const BundleFormat = 1

// Bundle is a trained router: the embedder it was trained with, k cluster
// centroids, and per cluster and model the mean quality, mean cost and sample
// count. Stats slices are aligned with Models. A Bundle is immutable once
// loaded and safe for concurrent use.
type Bundle struct {
	Format   int          `json:"format"`
	ID       string       `json:"id"`
	Revision string       `json:"revision"`
	Embedder EmbedderSpec `json:"embedder"`
	// Models lists the model ids the bundle scores, sorted.
	Models []string `json:"models"`
	// Global holds each model's mean over all training samples.
	Global   []ModelStats `json:"global"`
	Clusters []Cluster    `json:"clusters"`
	Training TrainingMeta `json:"training"`
	// Scorer is the scorer kind: ScorerAvengersPro ("" in older files),
	// ScorerExpected or ScorerPredictor (see scoreVec and Dial).
	Scorer string `json:"scorer,omitempty"`
	// Predictor is the per-query quality model of a ScorerPredictor bundle
	// (nil for the other kinds).
	Predictor *Predictor `json:"predictor,omitempty"`
	// Dial, for ScorerExpected and ScorerPredictor, holds the price of a dollar in quality units
	// (lambda) at evenly spaced alpha from 0 to 1: non-increasing, the last 0.
	// Training places the knots so that the expected spend on the training
	// queries rises evenly from the cheapest to the most expensive choice.
	Dial []float64 `json:"dial,omitempty"`
	// Preambles are text prefixes that many training prompts share (a
	// few-shot template, a fixed instruction block), longest first, learned
	// at training time: the router strips the longest one a query starts
	// with before it embeds the query and computes its features, so both
	// describe the question rather than the template (see QueryText).
	Preambles []string       `json:"preambles,omitempty"`
	index     map[string]int // model id -> position in Models
}

// EmbedderSpec names the embedder a bundle was trained with.
type EmbedderSpec struct {
	ID          string `json:"id"`
	Dim         int    `json:"dim"`
	Fingerprint string `json:"fingerprint"`
	// Lexical holds lexical-v1's definition (its IDF table); nil for others.
	Lexical *lexical.Params `json:"lexical,omitempty"`
}

// Cluster is one k-means cluster.
type Cluster struct {
	// Centroid is unit length, Dim long.
	Centroid []float32 `json:"centroid"`
	// Size is how many training samples fell in the cluster.
	Size int `json:"size"`
	// Stats, aligned with Bundle.Models: quality and cost shrunk toward the
	// model's global mean (see TrainingMeta.Shrinkage).
	Stats []ModelStats `json:"stats"`
}

// ModelStats is one model's record in a cluster (or globally).
type ModelStats struct {
	Quality float64 `json:"q"`
	// Cost is the mean cost per query in US dollars.
	Cost float64 `json:"c"`
	// N is the number of samples that scored this model.
	N int `json:"n"`
}

// TrainingMeta records how a bundle was trained.
type TrainingMeta struct {
	// DataHash is the SHA-256 of the canonical training samples.
	DataHash string `json:"data_hash"`
	Samples  int    `json:"samples"`
	Seed     uint64 `json:"seed"`
	K        int    `json:"k"`
	Restarts int    `json:"restarts"`
	// Shrinkage is m in q = (n*mean + m*global)/(n+m).
	Shrinkage float64 `json:"shrinkage"`
	Inertia   float64 `json:"inertia"`
	Date      string  `json:"date"`
	// Sources describe where the scores came from.
	Sources []string `json:"sources,omitempty"`
	Notes   string   `json:"notes,omitempty"`
	// Selection records how the scorer kind was chosen (cross-validation
	// on the training data), when it was.
	Selection string `json:"selection,omitempty"`
}

// LoadBundle reads a bundle (JSON, optionally gzip-compressed) and checks it:
// format version, dimensions, centroid and stats shapes. It returns an error
// wrapping ErrBundle when the bundle is unusable.
func LoadBundle(r io.Reader) (*Bundle, error) {
	br := bufio.NewReader(r)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %w", ErrBundle, err)
		}
		defer zr.Close()
		r = zr
	} else {
		r = br
	}
	var b Bundle
	dec := json.NewDecoder(r)
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBundle, err)
	}
	if err := b.Prepare(); err != nil {
		return nil, err
	}
	return &b, nil
}

// Prepare validates the bundle and builds its index; centroids are
// renormalised. LoadBundle calls it; a bundle built in memory (by training)
// must be prepared before use.
func (b *Bundle) Prepare() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrBundle}, args...)...)
	}
	if b.Format != BundleFormat {
		return bad("format %d, want %d", b.Format, BundleFormat)
	}
	if b.Embedder.ID == "" || b.Embedder.Dim <= 0 || b.Embedder.Fingerprint == "" {
		return bad("embedder id, dim and fingerprint are required")
	}
	if len(b.Models) == 0 || len(b.Clusters) == 0 {
		return bad("no models or no clusters")
	}
	if len(b.Global) != len(b.Models) {
		return bad("global stats for %d models, want %d", len(b.Global), len(b.Models))
	}
	if err := checkDial(b.Scorer, b.Dial); err != nil {
		return bad("%v", err)
	}
	if b.Scorer == ScorerPredictor {
		if err := b.Predictor.check(len(b.Models), b.Embedder.Dim); err != nil {
			return bad("%v", err)
		}
	} else if b.Predictor != nil {
		return bad("a %q bundle has no predictor", b.Scorer)
	}
	if err := checkPreambles(b.Preambles); err != nil {
		return bad("%v", err)
	}
	b.index = make(map[string]int, len(b.Models))
	for i, m := range b.Models {
		if _, dup := b.index[m]; dup || m == "" {
			return bad("model %q empty or repeated", m)
		}
		b.index[m] = i
	}
	for ci := range b.Clusters {
		c := &b.Clusters[ci]
		if len(c.Centroid) != b.Embedder.Dim {
			return bad("cluster %d centroid has %d dimensions, want %d", ci, len(c.Centroid), b.Embedder.Dim)
		}
		if len(c.Stats) != len(b.Models) {
			return bad("cluster %d has stats for %d models, want %d", ci, len(c.Stats), len(b.Models))
		}
		for _, s := range c.Stats {
			if !finite(s.Quality) || !finite(s.Cost) {
				return bad("cluster %d has a non-finite statistic", ci)
			}
		}
		Normalise(c.Centroid)
	}
	return nil
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// Encode writes the bundle as compact JSON with a trailing newline. The output
// depends only on the bundle's contents, so retraining with the same inputs
// reproduces the file byte for byte.
func (b *Bundle) Encode(w io.Writer) error {
	data, err := json.Marshal(b)
	if err != nil {
		return fmt.Errorf("routing: encode bundle: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// Bytes returns Encode's output.
func (b *Bundle) Bytes() ([]byte, error) {
	var buf bytes.Buffer
	err := b.Encode(&buf)
	return buf.Bytes(), err
}

// ModelIndex returns the position of model in Models.
func (b *Bundle) ModelIndex(model string) (int, bool) {
	i, ok := b.index[model]
	return i, ok
}

// CheckEmbedder returns an error wrapping ErrEmbedderMismatch unless emb has the
// bundle's embedder id, dimension and fingerprint.
func (b *Bundle) CheckEmbedder(emb Embedder) error {
	if emb == nil {
		return fmt.Errorf("%w: no embedder", ErrEmbedderMismatch)
	}
	want := b.Embedder
	if emb.ID() != want.ID || emb.Dim() != want.Dim || emb.Fingerprint() != want.Fingerprint {
		return fmt.Errorf("%w: bundle %s wants %s/%d/%s, running %s/%d/%s", ErrEmbedderMismatch,
			b.ID, want.ID, want.Dim, want.Fingerprint, emb.ID(), emb.Dim(), emb.Fingerprint())
	}
	return nil
}

// LexicalEmbedder builds the lexical-v1 embedder stored in a lexical bundle.
// It returns an error wrapping ErrEmbedderMismatch for a bundle of another
// embedder.
func (b *Bundle) LexicalEmbedder() (*lexical.Embedder, error) {
	if b.Embedder.ID != lexical.ID || b.Embedder.Lexical == nil {
		return nil, fmt.Errorf("%w: bundle %s uses embedder %s", ErrEmbedderMismatch, b.ID, b.Embedder.ID)
	}
	e, err := lexical.New(*b.Embedder.Lexical)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBundle, err)
	}
	if err := b.CheckEmbedder(e); err != nil {
		return nil, err
	}
	return e, nil
}

// Normalise scales v to unit length in place (a zero vector stays zero).
// Centroids are kept unit length so that Similarity is their cosine.
func Normalise(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 || math.Abs(s-1) < 1e-6 {
		return
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}

// Similarity is the dot product of a and b: for unit vectors (embeddings,
// centroids) their cosine similarity, the measure the router ranks clusters
// by. Training must use the same measure.
func Similarity(a, b []float32) float32 {
	var s float32
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// BundleEmbedder returns the embedder to run with b: for a lexical-v1 bundle the
// embedder stored in it, otherwise given, after checking that it matches
// (ErrEmbedderMismatch).
func BundleEmbedder(b *Bundle, given Embedder) (Embedder, error) {
	if b == nil {
		return nil, ErrNoBundle
	}
	if b.Embedder.Lexical != nil {
		return b.LexicalEmbedder()
	}
	if err := b.CheckEmbedder(given); err != nil {
		return nil, err
	}
	return given, nil
}
