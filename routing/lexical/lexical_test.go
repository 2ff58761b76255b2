package lexical

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"
)

func mustNew(t testing.TB, p Params) *Embedder {
	t.Helper()
	e, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestEmbedDeterministicAndNormalised(t *testing.T) {
	ctx := context.Background()
	e := mustNew(t, Params{Dim: 256, Seed: 3})
	for _, text := range []string{"Write a Go function that reverses a string.", "你好,世界", "café au lait", "x"} {
		a, err := e.Embed(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := mustNew(t, Params{Dim: 256, Seed: 3}).Embed(ctx, text)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("%q: dimension %d differs between two embedders with equal params", text, i)
			}
		}
		if n := math.Sqrt(cos(a, a)); math.Abs(n-1) > 1e-5 {
			t.Fatalf("%q: norm %v, want 1", text, n)
		}
	}
	zero, _ := e.Embed(ctx, "   \n\t ")
	for _, x := range zero {
		if x != 0 {
			t.Fatal("blank text must embed as the zero vector")
		}
	}
}

func TestEmbedSimilarity(t *testing.T) {
	ctx := context.Background()
	e := mustNew(t, Params{})
	if e.Dim() != DefaultDim || e.ID() != "lexical-v1" {
		t.Fatalf("dim %d id %s", e.Dim(), e.ID())
	}
	a, _ := e.Embed(ctx, "Write a Python function that sorts a list of numbers.")
	b, _ := e.Embed(ctx, "Write a python function to sort a list of integers.")
	c, _ := e.Embed(ctx, "Translate into French: the meeting moved to Thursday.")
	if ab, ac := cos(a, b), cos(a, c); ab <= ac+0.2 {
		t.Fatalf("similar prompts cos %v not clearly above dissimilar %v", ab, ac)
	}
	// Case and digit values do not matter; digits keep their shape.
	d1, _ := e.Embed(ctx, "Solve 12 + 35")
	d2, _ := e.Embed(ctx, "solve 47 + 98")
	if c := cos(d1, d2); c < 0.9999 {
		t.Fatalf("case/digit folding: cos %v", c)
	}
}

func TestFingerprint(t *testing.T) {
	base := mustNew(t, Params{Dim: 64, Seed: 1})
	// Pinned: a change to the fingerprint recipe must be deliberate (and bump Version).
	const want = "53291910b30eade52c4e0132b5385f20"
	if got := base.Fingerprint(); got != want {
		t.Fatalf("fingerprint %s, pinned %s", got, want)
	}
	if base.Fingerprint() != mustNew(t, Params{Dim: 64, Seed: 1}).Fingerprint() {
		t.Fatal("fingerprint not stable")
	}
	idf := make([]float32, 64)
	for i := range idf {
		idf[i] = 1
	}
	if mustNew(t, Params{Dim: 64, Seed: 1, IDF: idf}).Fingerprint() != base.Fingerprint() {
		t.Fatal("an all-ones IDF must equal the default IDF")
	}
	idf[5] = 2
	for name, other := range map[string]*Embedder{
		"seed": mustNew(t, Params{Dim: 64, Seed: 2}),
		"dim":  mustNew(t, Params{Dim: 128, Seed: 1}),
		"idf":  mustNew(t, Params{Dim: 64, Seed: 1, IDF: idf}),
	} {
		if other.Fingerprint() == base.Fingerprint() {
			t.Errorf("fingerprint ignores the %s", name)
		}
	}
}

// TestEmbeddingGolden pins the features: if it fails, the embedding function
// changed, and Version must be bumped so old bundles are refused.
func TestEmbeddingGolden(t *testing.T) {
	v, _ := mustNew(t, Params{Dim: 64, Seed: 1}).Embed(context.Background(), "Fix the nil map panic in handler.go, then run go test ./...")
	h := sha256.New()
	for _, x := range v {
		binary.Write(h, binary.LittleEndian, math.Float32bits(x))
	}
	const want = "e54d5bf165d4343d"
	if got := hex.EncodeToString(h.Sum(nil))[:16]; got != want {
		t.Fatalf("embedding hash %s, pinned %s (bump Version if the change is deliberate)", got, want)
	}
}

func TestFit(t *testing.T) {
	texts := []string{"alpha common", "beta common", "gamma common", "delta common"}
	e := mustNew(t, Params{Dim: 4096, Seed: 9})
	fitted, err := e.Fit(texts)
	if err != nil {
		t.Fatal(err)
	}
	p := fitted.Params()
	if p.Dim != 4096 || p.Seed != 9 || len(p.IDF) != 4096 {
		t.Fatalf("params %d %d %d", p.Dim, p.Seed, len(p.IDF))
	}
	// The unigram "common" is in every text: idf = ln(5/5)+1 = 1. "alpha" is in
	// one: idf = ln(5/2)+1. Unseen buckets: ln(5)+1.
	var norm []byte
	norm = normalize(norm, "common")
	var commonBucket, alphaBucket uint64
	visit(norm, 9, func(h uint64) { commonBucket = bucket(h, 2048) }, func(uint64) {})
	norm = normalize(norm, "alpha")
	visit(norm, 9, func(h uint64) { alphaBucket = bucket(h, 2048) }, func(uint64) {})
	if got := p.IDF[commonBucket]; math.Abs(float64(got)-1) > 1e-6 {
		t.Errorf("idf(common) = %v, want 1", got)
	}
	if got, want := p.IDF[alphaBucket], math.Log(5.0/2)+1; math.Abs(float64(got)-want) > 1e-6 {
		t.Errorf("idf(alpha) = %v, want %v", got, want)
	}
	again, _ := e.Fit(texts)
	if again.Fingerprint() != fitted.Fingerprint() || fitted.Fingerprint() == e.Fingerprint() {
		t.Fatal("Fit is not deterministic or did not change the IDF")
	}
}

func TestNewRejectsBadParams(t *testing.T) {
	for name, p := range map[string]Params{
		"odd dim":    {Dim: 33},
		"small dim":  {Dim: 8},
		"short idf":  {Dim: 16, IDF: make([]float32, 15)},
		"nan weight": {Dim: 16, IDF: []float32{float32(math.NaN()), 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
	} {
		if _, err := New(p); !errors.Is(err, ErrParams) {
			t.Errorf("%s: err %v, want ErrParams", name, err)
		}
	}
}

func TestEmbedIntoDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under the race detector")
	}
	e := mustNew(t, Params{})
	out := make([]float32, e.Dim())
	text := strings.Repeat("Refactor the handler to return errors. ", 25)
	e.EmbedInto(out, text)
	if n := testing.AllocsPerRun(100, func() { e.EmbedInto(out, text) }); n > 0 {
		t.Fatalf("EmbedInto allocates %v times per call", n)
	}
}

func TestEmbedHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := mustNew(t, Params{}).Embed(ctx, "text"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}

func BenchmarkEmbed1KB(b *testing.B) {
	e := mustNew(b, Params{})
	text := strings.Repeat("Please fix the failing test in parser.go; it panics on empty input. ", 16)[:1024]
	out := make([]float32, e.Dim())
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		e.EmbedInto(out, text)
	}
}
