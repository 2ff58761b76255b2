package offline

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"github.com/heddle-gw/heddle/routing"
	"math"
	"strings"
	"testing"

	"github.com/heddle-gw/heddle/routing/lexical"
)

// mapEmbedder embeds a prompt by its first letter: x -> (1,0), y -> (0,1).
type mapEmbedder struct{}

func (mapEmbedder) ID() string          { return "map" }
func (mapEmbedder) Dim() int            { return 2 }
func (mapEmbedder) Fingerprint() string { return "map-v1" }
func (mapEmbedder) Embed(_ context.Context, text string) ([]float32, error) {
	if strings.HasPrefix(text, "x") {
		return []float32{1, 0}, nil
	}
	return []float32{0, 1}, nil
}

func sample(prompt string, qa, qb float64) Sample {
	return Sample{Prompt: prompt, Task: prompt[:1], Quality: map[string]float64{"A": qa, "B": qb}, Cost: map[string]float64{"A": 1, "B": 0.1}}
}

func trainSamples() []Sample {
	return []Sample{sample("x1", 1, 0), sample("y1", 0, 1), sample("x2", 1, 0), sample("x3", 0, 0)}
}

func TestShrink(t *testing.T) {
	for _, tc := range []struct {
		mean    float64
		n       int
		global  float64
		m, want float64
	}{
		{0.9, 10, 0.5, 0, 0.9},
		{0.9, 10, 0.5, 10, 0.7},
		{1, 1, 0.5, 4, 0.6},
		{0.2, 0, 0.5, 5, 0.5},
		{0.2, 0, 0.5, 0, 0.5},
	} {
		if got := Shrink(tc.mean, tc.n, tc.global, tc.m); !near(got, tc.want) {
			t.Errorf("Shrink(%v, %d, %v, %v) = %v, want %v", tc.mean, tc.n, tc.global, tc.m, got, tc.want)
		}
	}
}

func TestTrainStatsAndShrinkage(t *testing.T) {
	cfg := TrainConfig{ID: "t", Revision: "r1", K: 2, Seed: 5, Restarts: 2, Shrinkage: 2, Date: "2026-11-29", Sources: []string{"unit test"}}
	b, err := Train(context.Background(), cfg, trainSamples(), mapEmbedder{})
	if err != nil {
		t.Fatal(err)
	}
	if b.ID != "t" || b.Revision != "r1" || b.Format != routing.BundleFormat || strings.Join(b.Models, ",") != "A,B" {
		t.Fatalf("bundle header %+v", b)
	}
	if b.Embedder != (routing.EmbedderSpec{ID: "map", Dim: 2, Fingerprint: "map-v1"}) {
		t.Fatalf("embedder %+v", b.Embedder)
	}
	tm := b.Training
	if tm.Samples != 4 || tm.Seed != 5 || tm.K != 2 || tm.Restarts != 2 || tm.Shrinkage != 2 || tm.Date != "2026-11-29" ||
		len(tm.DataHash) != 64 || tm.Sources[0] != "unit test" {
		t.Fatalf("training meta %+v", tm)
	}
	// Global: A 2/4 = 0.5, B 1/4 = 0.25; costs 1 and 0.1.
	if b.Global[0] != (routing.ModelStats{Quality: 0.5, Cost: 1, N: 4}) || b.Global[1] != (routing.ModelStats{Quality: 0.25, Cost: 0.1, N: 4}) {
		t.Fatalf("global %+v", b.Global)
	}
	x, y := b.Clusters[0], b.Clusters[1]
	if x.Centroid[0] < 0.5 {
		x, y = y, x
	}
	// x: A (2 + 2*0.5)/(3+2) = 0.6, B (0 + 2*0.25)/5 = 0.1; y: A (0+1)/3, B (1+0.5)/3.
	want := map[string][]routing.ModelStats{
		"x": {{Quality: 0.6, Cost: 1, N: 3}, {Quality: 0.1, Cost: 0.1, N: 3}},
		"y": {{Quality: 0.333333333, Cost: 1, N: 1}, {Quality: 0.5, Cost: 0.1, N: 1}},
	}
	for name, c := range map[string]routing.Cluster{"x": x, "y": y} {
		for i, s := range c.Stats {
			w := want[name][i]
			if !near(s.Quality, w.Quality) || !near(s.Cost, w.Cost) || s.N != w.N {
				t.Errorf("cluster %s model %s: %+v, want %+v", name, b.Models[i], s, w)
			}
		}
	}
	if x.Size != 3 || y.Size != 1 {
		t.Fatalf("sizes %d %d", x.Size, y.Size)
	}
}

func TestBundleRoundTrip(t *testing.T) {
	ctx := context.Background()
	lx, _ := lexical.New(lexical.Params{Dim: 64, Seed: 3})
	samples := []Sample{sample("x write code", 1, 0), sample("y translate text", 0, 1), sample("x fix bug", 1, 1), sample("y poem", 0, 0)}
	b, err := Train(ctx, TrainConfig{K: 2, Seed: 1}, samples, lx)
	if err != nil {
		t.Fatal(err)
	}
	if b.Embedder.Lexical == nil || len(b.Embedder.Lexical.IDF) != 64 || b.Embedder.Fingerprint == lx.Fingerprint() {
		t.Fatal("a lexical bundle must carry its fitted IDF table")
	}
	data, err := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	again, err := Train(ctx, TrainConfig{K: 2, Seed: 1}, samples, lx)
	if err != nil {
		t.Fatal(err)
	}
	if data2, _ := again.Bytes(); !bytes.Equal(data, data2) {
		t.Fatal("training twice with the same inputs gives different bytes")
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	for name, raw := range map[string][]byte{"json": data, "gzip": gz.Bytes()} {
		loaded, err := routing.LoadBundle(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if out, _ := loaded.Bytes(); !bytes.Equal(out, data) {
			t.Fatalf("%s: re-encoding a loaded bundle changed it", name)
		}
		emb, err := routing.BundleEmbedder(loaded, nil)
		if err != nil || emb.Fingerprint() != b.Embedder.Fingerprint {
			t.Fatalf("%s: embedder %v", name, err)
		}
	}
	// The unfitted embedder does not match the bundle: refused.
	if _, err := routing.NewRouter(b, lx, routing.Config{}); !errors.Is(err, routing.ErrEmbedderMismatch) {
		t.Fatalf("unfitted lexical embedder accepted: %v", err)
	}
	if _, err := routing.BundleEmbedder(&routing.Bundle{Embedder: routing.EmbedderSpec{ID: "hugot", Dim: 2, Fingerprint: "f"}}, mapEmbedder{}); !errors.Is(err, routing.ErrEmbedderMismatch) {
		t.Fatalf("hugot bundle with map embedder: %v", err)
	}
}

func TestLoadBundleRejects(t *testing.T) {
	good := `{"format":1,"id":"b","embedder":{"id":"e","dim":2,"fingerprint":"f"},"models":["A"],"global":[{"q":1,"c":1,"n":1}],` +
		`"clusters":[{"centroid":[1,0],"size":1,"stats":[{"q":1,"c":1,"n":1}]}]}`
	if _, err := routing.LoadBundle(strings.NewReader(good)); err != nil {
		t.Fatalf("good bundle: %v", err)
	}
	for name, doc := range map[string]string{
		"not json":         "{",
		"format":           strings.Replace(good, `"format":1`, `"format":2`, 1),
		"no fingerprint":   strings.Replace(good, `"fingerprint":"f"`, `"fingerprint":""`, 1),
		"centroid dim":     strings.Replace(good, `"centroid":[1,0]`, `"centroid":[1,0,0]`, 1),
		"stats count":      strings.Replace(good, `"stats":[{"q":1,"c":1,"n":1}]`, `"stats":[]`, 1),
		"global count":     strings.Replace(good, `"global":[{"q":1,"c":1,"n":1}]`, `"global":[]`, 1),
		"duplicate models": strings.Replace(strings.Replace(good, `"models":["A"]`, `"models":["A","A"]`, 1), `"global":[{"q":1,"c":1,"n":1}]`, `"global":[{"q":1,"c":1,"n":1},{"q":1,"c":1,"n":1}]`, 1),
		"no clusters":      strings.Replace(good, `"clusters":[{"centroid":[1,0],"size":1,"stats":[{"q":1,"c":1,"n":1}]}]`, `"clusters":[]`, 1),
	} {
		if _, err := routing.LoadBundle(strings.NewReader(doc)); !errors.Is(err, routing.ErrBundle) {
			t.Errorf("%s: err %v, want ErrBundle", name, err)
		}
	}
}

func TestDataHash(t *testing.T) {
	a := DataHash(trainSamples())
	if a != DataHash(trainSamples()) {
		t.Fatal("DataHash not stable")
	}
	changed := trainSamples()
	changed[0].Quality["A"] = 0.5
	if DataHash(changed) == a {
		t.Fatal("DataHash ignores a score")
	}
	reordered := trainSamples()
	reordered[0], reordered[1] = reordered[1], reordered[0]
	if DataHash(reordered) == a {
		t.Fatal("DataHash ignores order")
	}
}

func TestTrainRejectsEmptyData(t *testing.T) {
	if _, err := Train(context.Background(), TrainConfig{}, nil, mapEmbedder{}); !errors.Is(err, routing.ErrData) {
		t.Fatalf("err %v", err)
	}
	noModels := []Sample{{Prompt: "x", Quality: map[string]float64{"A": 1}}}
	if _, err := Train(context.Background(), TrainConfig{}, noModels, mapEmbedder{}); !errors.Is(err, routing.ErrData) {
		t.Fatalf("no model with both score and cost: err %v", err)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-5 }
