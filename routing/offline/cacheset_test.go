package offline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/routing"
)

func readCacheSet(t *testing.T) []CachePair {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "paraphrases.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pairs, err := ReadCachePairs(f)
	if err != nil {
		t.Fatal(err)
	}
	return pairs
}

// TestCacheSetLexical measures the semantic tier with lexical-v1 (the
// default bundle's) on the repository's set: at the shipped threshold it
// must serve no wrong answer. It also records why the tier is off by
// default (HEDDLE_CACHE_SEMANTIC): with lexical-v1 it serves almost no
// reworded question, and at thresholds low enough to serve some it serves
// wrong answers too.
func TestCacheSetLexical(t *testing.T) {
	pairs := readCacheSet(t)
	r := CacheSetRates{Pairs: map[string]int{}}
	for _, p := range pairs {
		r.Pairs[p.Kind]++
		if p.Kind == PairNear {
			r.Pairs[PairNear+":"+p.Why]++
		}
	}
	if r.Pairs[PairHit] < 50 || r.Pairs[PairNear] < 50 {
		t.Fatalf("set has %d reworded pairs and %d near-duplicates, want at least 50 of each", r.Pairs[PairHit], r.Pairs[PairNear])
	}
	for _, why := range []string{"numbers", "negation", "entity", "code"} {
		if r.Pairs[PairNear+":"+why] < 10 {
			t.Fatalf("only %d near-duplicates differ by %s", r.Pairs[PairNear+":"+why], why)
		}
	}
	def, err := routing.DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	emb, err := def.LexicalEmbedder()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var out bytes.Buffer
	for _, th := range []float64{routing.DefaultCacheThreshold, 0.9, 0.85, 0.8} {
		r, err := MeasureCacheSet(ctx, emb, th, pairs)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Write(&out); err != nil {
			t.Fatal(err)
		}
		if th != routing.DefaultCacheThreshold {
			continue
		}
		if len(r.Wrong) != 0 {
			t.Errorf("wrong hits at the shipped threshold: %+v", r.Wrong)
		}
		if r.HitRate() >= 0.5 {
			t.Errorf("lexical-v1 serves %.0f%% of the reworded pairs: the tier may pay now, revisit HEDDLE_CACHE_SEMANTIC's default", 100*r.HitRate())
		}
	}
	t.Log("\n" + out.String())
	if !strings.Contains(out.String(), "lexical-v1 at threshold 0.97: hit rate ") {
		t.Fatalf("rates output %q", out.String())
	}
}
