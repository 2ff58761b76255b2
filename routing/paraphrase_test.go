package routing_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"sort"
	"testing"

	"github.com/heddle-gw/heddle/routing"
)

type paraphrase struct {
	Kind  string `json:"kind"` // "hit": the same question reworded; "miss": same topic, another question
	Topic string `json:"topic"`
	A     string `json:"a"`
	B     string `json:"b"`
}

func readParaphrases(t *testing.T) []paraphrase {
	t.Helper()
	f, err := os.Open("testdata/paraphrases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ps []paraphrase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var p paraphrase
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("paraphrases.jsonl line %d: %v", len(ps)+1, err)
		}
		if p.Kind != "hit" && p.Kind != "miss" {
			t.Fatalf("line %d: kind %q", len(ps)+1, p.Kind)
		}
		ps = append(ps, p)
	}
	return ps
}

// TestParaphraseHitRate stores each pair's first question and looks up the
// second through the semantic cache with lexical-v1 from the default bundle
// at the spec's default threshold (0.97, not tuned to this set). It reports
// the hit rate over the reworded pairs and the wrong-hit rate over the
// near-misses, and the same rates for the cosine alone (without the cache's
// equal-numbers rule). A wrong hit serves someone a wrong answer: the bound
// is 0.
func TestParaphraseHitRate(t *testing.T) {
	ps := readParaphrases(t)
	emb := lexical(t)
	ctx := context.Background()
	var hits, wrong, nHit, nMiss, rawHits, rawWrong int
	cos := map[string][]float64{}
	type scored struct {
		hit, sameNumbers bool
		cos              float64
	}
	var all []scored
	for _, p := range ps {
		env := newCacheEnv(t, routing.CacheConfig{})
		store(t, env, aliceScope, ask(p.A), answer("answer to: "+p.A))
		_, h := lookup(t, env, aliceScope, ask(p.B))
		served := h.Kind == routing.HitSemantic || h.Kind == routing.HitExact
		va, _ := emb.Embed(ctx, p.A)
		vb, _ := emb.Embed(ctx, p.B)
		c := dotf(va, vb)
		cos[p.Kind] = append(cos[p.Kind], c)
		raw := c >= routing.DefaultCacheThreshold
		ka, _, _ := routing.CacheKeysOf(aliceScope, ask(p.A), "fp", 0)
		kb, _, _ := routing.CacheKeysOf(aliceScope, ask(p.B), "fp", 0)
		all = append(all, scored{hit: p.Kind == "hit", sameNumbers: ka.Numbers == kb.Numbers, cos: c})
		if p.Kind == "hit" {
			nHit++
			if served {
				hits++
			}
			if raw {
				rawHits++
			}
		} else {
			nMiss++
			if served {
				wrong++
				t.Errorf("wrong hit (cosine %.4f): %q answered %q", h.Similarity, p.B, p.A)
			}
			if raw {
				rawWrong++
				t.Logf("cosine alone would serve a wrong answer (%.4f): %q / %q", c, p.A, p.B)
			}
		}
	}
	if nHit < 50 || nMiss < 50 {
		t.Fatalf("set has %d reworded pairs and %d near-misses, want about 60 of each", nHit, nMiss)
	}
	t.Logf("lexical-v1, threshold %.2f: hit rate %d/%d = %.1f%%, wrong-hit rate %d/%d = %.1f%%",
		routing.DefaultCacheThreshold, hits, nHit, pct(hits, nHit), wrong, nMiss, pct(wrong, nMiss))
	t.Logf("cosine alone (no equal-numbers rule): hit rate %d/%d = %.1f%%, wrong-hit rate %d/%d = %.1f%%",
		rawHits, nHit, pct(rawHits, nHit), rawWrong, nMiss, pct(rawWrong, nMiss))
	for _, k := range []string{"hit", "miss"} {
		c := cos[k]
		sort.Float64s(c)
		t.Logf("cosine over %s pairs: min %.3f, p25 %.3f, median %.3f, p75 %.3f, max %.3f",
			k, c[0], c[len(c)/4], c[len(c)/2], c[3*len(c)/4], c[len(c)-1])
	}
	// For the record only (the threshold stays the spec's 0.97): what other
	// thresholds would do on this set, with the equal-numbers rule.
	for _, th := range []float64{0.95, 0.9, 0.85, 0.8} {
		var h, w int
		for _, x := range all {
			if x.sameNumbers && x.cos >= th {
				if x.hit {
					h++
				} else {
					w++
				}
			}
		}
		t.Logf("  at threshold %.2f: hit rate %.1f%%, wrong-hit rate %.1f%%", th, pct(h, nHit), pct(w, nMiss))
	}
	if wrong != 0 {
		t.Fatalf("wrong-hit rate %d/%d, bound 0", wrong, nMiss)
	}
	if hits == 0 {
		t.Fatal("no reworded pair hit: the semantic tier never served")
	}
}

func dotf(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func pct(n, d int) float64 { return 100 * float64(n) / float64(d) }
