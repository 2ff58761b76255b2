package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/wordvec"
)

// TestLexicalWordvecSpec: a bundle trained with --embedder
// lexical+wordvec:FILE records the concatenation, and the same spec opened
// again (as HEDDLE_EMBEDDER is) routes with it; other vectors are refused.
func TestLexicalWordvecSpec(t *testing.T) {
	ctx := context.Background()
	vecFile := func(x float32) string {
		v := &wordvec.Vectors{Dim: 4, VocabSize: 100, Words: []string{"write", "function", "python", "translate", "french"}}
		for i := range v.Words {
			v.Vecs = append(v.Vecs, x, float32(i), 1, -x)
		}
		p := filepath.Join(t.TempDir(), "v.hwv")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := v.Write(f); err != nil {
			t.Fatal(err)
		}
		return p
	}
	vecs := vecFile(1)
	spec := "lexical+wordvec:" + vecs
	data := writeFile(t, "train.jsonl", cliJSONL)
	out := filepath.Join(t.TempDir(), "bundle.json")
	var stdout strings.Builder
	ad := bundleAdapters{open: openEmbedderSpec}
	if err := bundleTrain(ctx, []string{"--train", data, "--out", out, "--k", "2", "--scorer", "predictor", "--embedder", spec}, &stdout, ad); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := routing.LoadBundle(f)
	if err != nil {
		t.Fatal(err)
	}
	if b.Embedder.ID != "lexical-v1+wordvec" || b.Embedder.Dim != 1024+4 || b.Embedder.Lexical != nil {
		t.Fatalf("embedder %+v", b.Embedder)
	}
	served, err := openEmbedderSpec(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	emb, err := routing.BundleEmbedder(b, served)
	if err != nil {
		t.Fatal(err)
	}
	r, err := routing.NewRouter(b, emb, routing.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Decide(ctx, routing.Query{Text: "write a function in python", Alpha: 0.5, Eligible: []string{"big", "small"}}); err != nil {
		t.Fatal(err)
	}
	other, err := openEmbedderSpec(ctx, "lexical+wordvec:"+vecFile(2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := routing.BundleEmbedder(b, other); !errors.Is(err, routing.ErrEmbedderMismatch) {
		t.Fatalf("other vectors: err %v, want ErrEmbedderMismatch", err)
	}
	if _, err := openEmbedderSpec(ctx, "lexical+wordvec:"); err == nil {
		t.Fatal("lexical+wordvec without a file opened")
	}
}
