package offline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/offline"
	"github.com/heddle-gw/heddle/routing/routingtest"
)

var trainedAt = time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)

func orgCfg() offline.OrgTrainConfig {
	return offline.OrgTrainConfig{Known: knownModels("cheap", "mid", "strong"), Now: func() time.Time { return trainedAt }}
}

func TestTrainOrgBundle(t *testing.T) {
	ctx := context.Background()
	data := routingtest.OrgEvalJSONL(200)
	b, err := offline.TrainOrgBundle(ctx, "org_a", bytes.NewReader(data), orgCfg())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.ID, "org-") || len(b.ID) != 20 || b.Revision != "20261129T180000Z" {
		t.Fatalf("id %q revision %q", b.ID, b.Revision)
	}
	if got := strings.Join(b.Models, ","); got != "cheap,mid,strong" {
		t.Fatalf("models %s", got)
	}
	tr := b.Training
	if tr.Samples != 200 || tr.K != 8 || tr.Seed != 1 || tr.Restarts != 3 || tr.Shrinkage != 3 ||
		tr.Date != "2026-11-29" || len(tr.DataHash) != 64 || len(b.Clusters) != 8 {
		t.Fatalf("training %+v, %d clusters", tr, len(b.Clusters))
	}
	if tr.Sources[0] != "organisation evaluation data org_a" || b.Embedder.ID != "lexical-v1" || b.Embedder.Lexical == nil {
		t.Fatalf("sources %v embedder %+v", tr.Sources, b.Embedder.ID)
	}
	// Same upload, same bundle id and centroids; another org, another id.
	again, err := offline.TrainOrgBundle(ctx, "org_a", bytes.NewReader(data), orgCfg())
	if err != nil || again.ID != b.ID || again.Training.DataHash != tr.DataHash {
		t.Fatalf("retrain: %v, id %s", err, again.ID)
	}
	other, err := offline.TrainOrgBundle(ctx, "org_b", bytes.NewReader(data), orgCfg())
	if err != nil || other.ID == b.ID {
		t.Fatalf("org_b: %v, id %s", err, other.ID)
	}
	// Without shrinkage (which separates models that tie within a cluster)
	// the bundle routes coding to strong and small talk to cheap at alpha 0.7.
	cfg := orgCfg()
	cfg.Shrinkage = 1e-12
	sharp, err := offline.TrainOrgBundle(ctx, "org_a", bytes.NewReader(data), cfg)
	if err != nil {
		t.Fatal(err)
	}
	emb, err := routing.BundleEmbedder(sharp, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := routing.NewRouter(sharp, emb, routing.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]string{
		"fix the segfault in the C parser, variant 9000": "strong",
		"tell me a short joke about cats, please 9001":   "cheap",
	} {
		d, err := r.Decide(ctx, routing.Query{Text: text, Alpha: 0.7, Eligible: []string{"cheap", "mid", "strong"}})
		if err != nil || d.Model != want || d.BundleID != b.ID || d.BundleRevision != b.Revision {
			t.Fatalf("%q -> %s (%v), want %s", text, d.Model, err, want)
		}
	}
	sum := routing.SummaryOf(b)
	sizes := 0
	for _, n := range sum.ClusterSizes {
		sizes += n
	}
	if sum.Samples != 200 || sum.K != 8 || sizes != 200 || len(sum.Models) != 3 || sum.Models[0] != (routing.ModelSummary{Model: "cheap", Quality: 0.5, Cost: 0.0001, N: 200}) {
		t.Fatalf("summary %+v", sum)
	}
	info := routing.InfoOf("org_a", b, trainedAt)
	if info.ID != b.ID || info.OrgID != "org_a" || info.K != 8 || info.Samples != 200 || info.DataHash != tr.DataHash ||
		info.Revision != b.Revision || len(info.Models) != 3 || !info.CreatedAt.Equal(trainedAt) {
		t.Fatalf("info %+v", info)
	}
}

func TestOrgK(t *testing.T) {
	for n, want := range map[int]int{0: 2, 50: 2, 75: 3, 200: 8, 800: 32, 20000: 32} {
		if got := offline.OrgK(n); got != want {
			t.Errorf("OrgK(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestTrainOrgBundleRejects(t *testing.T) {
	good := string(routingtest.OrgEvalJSONL(60))
	line := func(v map[string]any) string { b, _ := json.Marshal(v); return string(b) + "\n" }
	costs := map[string]float64{"cheap": 0.1, "strong": 1}
	for _, tc := range []struct {
		name  string
		data  string
		cfg   func(*offline.OrgTrainConfig)
		is    error
		field string
	}{
		{"too few samples", string(routingtest.OrgEvalJSONL(49)), nil, routing.ErrData, "body"},
		{"one model", strings.Repeat(line(map[string]any{"prompt": "p", "scores": map[string]float64{"cheap": 1}, "costs": map[string]float64{"cheap": 1}}), 60), nil, routing.ErrData, "body"},
		{"too many bytes", good, func(c *offline.OrgTrainConfig) { c.MaxBytes = 1000 }, routing.ErrDataTooLarge, "body"},
		{"too many samples", good, func(c *offline.OrgTrainConfig) { c.MaxSamples = 55 }, routing.ErrDataTooLarge, "body"},
		{"not json", good + "{oops\n", nil, routing.ErrData, "line 61: json"},
		{"no prompt", good + line(map[string]any{"scores": costs, "costs": costs}), nil, routing.ErrData, "line 61: prompt"},
		{"no scores", "\n" + good + line(map[string]any{"prompt": "p"}), nil, routing.ErrData, "line 62: scores"},
		{"wrong type", line(map[string]any{"prompt": "p", "scores": "high"}) + good, nil, routing.ErrData, "line 1: scores"},
		{"unknown model", good + line(map[string]any{"prompt": "p", "scores": map[string]float64{"gpt-9": 1}, "costs": map[string]float64{"gpt-9": 1}}), nil, routing.ErrData, "line 61: scores.gpt-9"},
		{"missing cost", good + line(map[string]any{"prompt": "p", "scores": costs, "costs": map[string]float64{"cheap": 1}}), nil, routing.ErrData, "line 61: costs.strong"},
		{"negative cost", good + line(map[string]any{"prompt": "p", "scores": costs, "costs": map[string]float64{"cheap": 1, "strong": -1}}), nil, routing.ErrData, "line 61: costs.strong"},
		{"cost without score", good + line(map[string]any{"prompt": "p", "scores": map[string]float64{"cheap": 1}, "costs": costs}), nil, routing.ErrData, "line 61: costs.strong"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := orgCfg()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			_, err := offline.TrainOrgBundle(context.Background(), "org_a", strings.NewReader(tc.data), cfg)
			var fe *routing.FieldError
			if !errors.Is(err, tc.is) || !errors.As(err, &fe) || fe.Field != tc.field {
				t.Fatalf("err = %v, want %v on field %q", err, tc.is, tc.field)
			}
		})
	}
	if _, err := offline.TrainOrgBundle(context.Background(), "org_a", strings.NewReader(good), offline.OrgTrainConfig{}); !errors.Is(err, routing.ErrUsage) {
		t.Fatalf("no Known: %v, want ErrUsage", err)
	}
}

func knownModels(ids ...string) func(string) bool {
	set := map[string]bool{}
	for _, id := range ids {
		set[id] = true
	}
	return func(m string) bool { return set[m] }
}

// wordEmbedder is a pretrained-style embedder for the tests: the
// L2-normalised sum of one seeded 16-dimensional vector per lower-case word
// (FNV hash), no refitting on the training prompts.
type wordEmbedder struct{}

func (wordEmbedder) ID() string          { return "words" }
func (wordEmbedder) Dim() int            { return 16 }
func (wordEmbedder) Fingerprint() string { return "words-v1" }
func (wordEmbedder) Embed(_ context.Context, text string) ([]float32, error) {
	out := make([]float32, 16)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r == ' ' || r == ',' }) {
		h := fnv.New64a()
		h.Write([]byte(w))
		rng := rand.New(rand.NewPCG(h.Sum64(), 1))
		for k := range out {
			out[k] += float32(rng.NormFloat64())
		}
	}
	var n float64
	for _, x := range out {
		n += float64(x) * float64(x)
	}
	for k := range out {
		if n > 0 {
			out[k] /= float32(math.Sqrt(n))
		}
	}
	return out, nil
}

// An organisation's upload trains with the embedder the gateway routes
// organisation bundles with (OrgTrainConfig.Embedder, HEDDLE_EMBEDDER): the
// bundle records it, routes only with it, and its predictor (when chosen)
// reads its dimensions; a training job does the same with
// JobsConfig.Embedder.
func TestTrainOrgBundleEmbedder(t *testing.T) {
	ctx := context.Background()
	emb := wordEmbedder{}
	cfg := orgCfg()
	cfg.Embedder, cfg.Shrinkage = emb, 1e-12
	b, err := offline.TrainOrgBundle(ctx, "org_a", bytes.NewReader(routingtest.OrgEvalJSONL(200)), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if b.Embedder.ID != "words" || b.Embedder.Dim != 16 || b.Embedder.Fingerprint != emb.Fingerprint() || b.Embedder.Lexical != nil {
		t.Fatalf("bundle embedder %+v, want words %s", b.Embedder, emb.Fingerprint())
	}
	if b.Predictor != nil && len(b.Predictor.Shared) != 16+routing.QueryFeatureCount+1 {
		t.Fatalf("predictor over %d inputs, want the 16 dimensions and the features", len(b.Predictor.Shared))
	}
	if _, err := routing.BundleEmbedder(b, nil); err == nil {
		t.Fatal("a bundle of another embedder routed without it")
	}
	r, err := routing.NewRouter(b, emb, routing.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]string{
		"fix the segfault in the C parser, variant 9000": "strong",
		"tell me a short joke about cats, please 9001":   "cheap",
	} {
		d, err := r.Decide(ctx, routing.Query{Text: text, Alpha: 0.7, Eligible: []string{"cheap", "mid", "strong"}})
		if err != nil || d.Model != want {
			t.Fatalf("%q -> %s (%v), want %s", text, d.Model, err, want)
		}
	}

	store, bundles := routingtest.NewJobStore(), newGated(false)
	j := offline.NewJobs(store, bundles, offline.JobsConfig{Workers: 1, Heartbeat: 10 * time.Millisecond, Embedder: emb}, nil)
	job := submit(t, j, "org_a")
	start(t, j)
	waitStatus(t, store, job, routing.JobDone)
	got := bundles.last()
	if got == nil {
		t.Fatal("the job stored no bundle")
	}
	if got.Embedder.ID != "words" || got.Embedder.Fingerprint != emb.Fingerprint() {
		t.Fatalf("the job's bundle embedder %+v, want words", got.Embedder)
	}
}
