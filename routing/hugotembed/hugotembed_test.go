package hugotembed

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/hugotembed/tinybert"
	"github.com/heddle-gw/heddle/routing/offline"
)

func openTiny(t testing.TB) (*Embedder, string) {
	t.Helper()
	dir := t.TempDir()
	if err := tinybert.Write(dir); err != nil {
		t.Fatal(err)
	}
	e, err := Open(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Close() })
	return e, dir
}

func l2(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s / (l2(a) * l2(b))
}

func TestEmbedTinyModel(t *testing.T) {
	e, _ := openTiny(t)
	ctx := context.Background()
	if e.ID() != "hugot" || e.Dim() != tinybert.Dim || len(e.Fingerprint()) != 32 {
		t.Fatalf("id %q dim %d fingerprint %q", e.ID(), e.Dim(), e.Fingerprint())
	}
	a1, err := e.Embed(ctx, "write a python function to sum a list")
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := e.Embed(ctx, "write a python function to sum a list")
	b, _ := e.Embed(ctx, "translate this letter into french please")
	if len(a1) != tinybert.Dim || math.Abs(l2(a1)-1) > 1e-4 {
		t.Fatalf("len %d norm %v, want %d and 1", len(a1), l2(a1), tinybert.Dim)
	}
	if c := cos(a1, a2); c < 0.99999 {
		t.Fatalf("same text embeds differently: cos %v", c)
	}
	if c := cos(a1, b); c > 0.999 {
		t.Fatalf("different texts embed alike: cos %v", c)
	}
	// Accents are stripped before tokenising: café and cafe embed the same.
	acc, _ := e.Embed(ctx, "le café est très bon")
	plain, _ := e.Embed(ctx, "le cafe est tres bon")
	if c := cos(acc, plain); c < 0.99999 {
		t.Fatalf("accented text embeds differently: cos %v", c)
	}
}

// TestEmbedOddInput feeds what a client might send; none of it may crash the
// process (hugot's tokenizer calls log.Fatal on an encoding error).
func TestEmbedOddInput(t *testing.T) {
	e, _ := openTiny(t)
	for name, text := range map[string]string{
		"empty":        "",
		"invalid utf8": "abc\xff\xfe\x80def",
		"controls":     "a\x00b\x01\x1b[31mred",
		"emoji":        "fix it 🚀🔥 now",
		"cjk":          "请把这段话翻译成英文",
		"long":         strings.Repeat("word ", 5000),
		"only spaces":  "   \n\t  ",
	} {
		v, err := e.Embed(context.Background(), text)
		if err != nil || len(v) != tinybert.Dim {
			t.Errorf("%s: %d dims, err %v", name, len(v), err)
		}
	}
}

func TestStripAccents(t *testing.T) {
	for in, want := range map[string]string{"café": "cafe", "Ångström": "Angstrom", "naïve résumé": "naive resume", "plain": "plain", "日本語": "日本語"} {
		if got := StripAccents(in); got != want {
			t.Errorf("StripAccents(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFingerprintCoversFiles(t *testing.T) {
	_, dir := openTiny(t)
	fp1, err := Fingerprint(dir)
	if err != nil {
		t.Fatal(err)
	}
	dir2 := t.TempDir()
	if err := tinybert.Write(dir2); err != nil {
		t.Fatal(err)
	}
	fp2, _ := Fingerprint(dir2)
	if fp1 != fp2 {
		t.Fatalf("the generator is not reproducible: %s != %s", fp1, fp2)
	}
	if err := os.WriteFile(filepath.Join(dir2, "vocab.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fp3, _ := Fingerprint(dir2); fp3 == fp1 {
		t.Fatal("fingerprint ignores vocab.txt")
	}
	if _, err := Fingerprint(t.TempDir()); !errors.Is(err, ErrModel) {
		t.Fatalf("empty dir: err %v, want ErrModel", err)
	}
}

func TestTrainAndRouteWithHugot(t *testing.T) {
	e, _ := openTiny(t)
	ctx := context.Background()
	var samples []offline.Sample
	for i, p := range []string{"write code in python", "fix the bug in this function", "solve the equation", "prove the sum formula",
		"translate to french", "translate into german", "write a poem", "write a story"} {
		q := map[string]float64{"big": 1, "small": float64(i % 2)}
		samples = append(samples, offline.Sample{Prompt: p, Quality: q, Cost: map[string]float64{"big": 1, "small": 0.1}})
	}
	b, err := offline.Train(ctx, offline.TrainConfig{K: 2, Seed: 1}, samples, e)
	if err != nil {
		t.Fatal(err)
	}
	if b.Embedder.ID != "hugot" || b.Embedder.Dim != tinybert.Dim || b.Embedder.Fingerprint != e.Fingerprint() {
		t.Fatalf("bundle embedder %+v", b.Embedder)
	}
	r, err := routing.NewRouter(b, e, routing.Config{EmbedTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	d, err := r.Decide(ctx, routing.Query{Text: "write code", Alpha: 1, Eligible: []string{"big", "small"}})
	if err != nil || d.Model != "big" || d.EmbedderID != "hugot" {
		t.Fatalf("decision %+v err %v", d, err)
	}
}

func TestOpenSpec(t *testing.T) {
	if _, err := OpenSpec(context.Background(), "lexical-v1"); !errors.Is(err, ErrModel) {
		t.Fatalf("err %v, want ErrModel", err)
	}
	dir := t.TempDir()
	if err := tinybert.Write(dir); err != nil {
		t.Fatal(err)
	}
	emb, err := OpenSpec(context.Background(), "hugot:"+dir)
	if err != nil || emb.Dim() != tinybert.Dim {
		t.Fatalf("OpenSpec: %v", err)
	}
	_ = emb.(*Embedder).Close()
}

func BenchmarkHugotEmbed(b *testing.B) {
	e, _ := openTiny(b)
	ctx := context.Background()
	text := "Write a Go function that merges two sorted slices of ints into one sorted slice without allocating more than once."
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Embed(ctx, text); err != nil {
			b.Fatal(err)
		}
	}
}
