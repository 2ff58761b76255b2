package routing

import (
	"context"
	"slices"
	"testing"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/routing/lexical"
)

func TestDefaultBundleMatchesCatalog(t *testing.T) {
	b, err := DefaultBundle()
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	// Every model the bundle scores is a catalog model; catalog models with
	// no evaluation data in the corpus (the 2026 additions) are served when
	// named, and not scored by the router.
	var ids []string
	for _, m := range cat.Models() {
		ids = append(ids, m.ID)
	}
	for _, m := range b.Models {
		if !slices.Contains(ids, m) {
			t.Errorf("bundle model %s is not in the catalog %v", m, ids)
		}
	}
	if len(b.Models) < 12 {
		t.Fatalf("bundle scores %d models: %v", len(b.Models), b.Models)
	}
	if b.ID != "heddle-default" || b.Embedder.ID != lexical.ID || b.Embedder.Lexical == nil || len(b.Clusters) != 16 {
		t.Fatalf("bundle %s embedder %s clusters %d", b.ID, b.Embedder.ID, len(b.Clusters))
	}
	tm := b.Training
	if tm.Date == "" || len(tm.Sources) < 5 || tm.Samples < 300 || tm.Notes == "" || len(tm.DataHash) != 64 {
		t.Fatalf("training metadata %+v", tm)
	}
}

func TestDefaultRouterDecides(t *testing.T) {
	r, err := DefaultRouter(Config{TopP: 1})
	if err != nil {
		t.Fatal(err)
	}
	b := r.Bundle()
	ctx := context.Background()
	for _, text := range []string{
		"Prove that the sum of two even numbers is even.",
		"Write a Rust function that parses a CSV line.",
		"Translate into German: where is the station?",
		"hi, how are you?",
	} {
		// With one cluster, alpha 1 is that cluster's best model and alpha 0
		// its cheapest, over all models.
		hi, err := r.Decide(ctx, Query{Text: text, Alpha: 1, Eligible: b.Models})
		if err != nil {
			t.Fatal(err)
		}
		lo, _ := r.Decide(ctx, Query{Text: text, Alpha: 0, Eligible: b.Models})
		c := b.Clusters[hi.Clusters[0].Cluster]
		best, cheapest := 0, 0
		for i, s := range c.Stats {
			if s.Quality > c.Stats[best].Quality {
				best = i
			}
			if s.Cost < c.Stats[cheapest].Cost {
				cheapest = i
			}
		}
		if hi.Model != b.Models[best] || lo.Model != b.Models[cheapest] || hi.Model == lo.Model {
			t.Errorf("%q: alpha 1 -> %s (want %s), alpha 0 -> %s (want %s)", text, hi.Model, b.Models[best], lo.Model, b.Models[cheapest])
		}
		t.Logf("%q: cluster %d, alpha 1 -> %s, alpha 0 -> %s", text, hi.Clusters[0].Cluster, hi.Model, lo.Model)
	}
}
