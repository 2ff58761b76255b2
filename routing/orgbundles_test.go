package routing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/routing"
)

var trainedAt = time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC)

func orgCfg() routing.OrgTrainConfig {
	return routing.OrgTrainConfig{Known: knownModels("cheap", "mid", "strong"), Now: func() time.Time { return trainedAt }}
}

func TestTrainOrgBundle(t *testing.T) {
	ctx := context.Background()
	data := orgJSONL(200)
	b, err := routing.TrainOrgBundle(ctx, "org_a", bytes.NewReader(data), orgCfg())
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
	again, err := routing.TrainOrgBundle(ctx, "org_a", bytes.NewReader(data), orgCfg())
	if err != nil || again.ID != b.ID || again.Training.DataHash != tr.DataHash {
		t.Fatalf("retrain: %v, id %s", err, again.ID)
	}
	other, err := routing.TrainOrgBundle(ctx, "org_b", bytes.NewReader(data), orgCfg())
	if err != nil || other.ID == b.ID {
		t.Fatalf("org_b: %v, id %s", err, other.ID)
	}
	// Without shrinkage (which separates models that tie within a cluster)
	// the bundle routes coding to strong and small talk to cheap at alpha 0.7.
	cfg := orgCfg()
	cfg.Shrinkage = 1e-12
	sharp, err := routing.TrainOrgBundle(ctx, "org_a", bytes.NewReader(data), cfg)
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
		if got := routing.OrgK(n); got != want {
			t.Errorf("OrgK(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestTrainOrgBundleRejects(t *testing.T) {
	good := string(orgJSONL(60))
	line := func(v map[string]any) string { b, _ := json.Marshal(v); return string(b) + "\n" }
	costs := map[string]float64{"cheap": 0.1, "strong": 1}
	for _, tc := range []struct {
		name  string
		data  string
		cfg   func(*routing.OrgTrainConfig)
		is    error
		field string
	}{
		{"too few samples", string(orgJSONL(49)), nil, routing.ErrData, "body"},
		{"one model", strings.Repeat(line(map[string]any{"prompt": "p", "scores": map[string]float64{"cheap": 1}, "costs": map[string]float64{"cheap": 1}}), 60), nil, routing.ErrData, "body"},
		{"too many bytes", good, func(c *routing.OrgTrainConfig) { c.MaxBytes = 1000 }, routing.ErrDataTooLarge, "body"},
		{"too many samples", good, func(c *routing.OrgTrainConfig) { c.MaxSamples = 55 }, routing.ErrDataTooLarge, "body"},
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
			_, err := routing.TrainOrgBundle(context.Background(), "org_a", strings.NewReader(tc.data), cfg)
			var fe *routing.FieldError
			if !errors.Is(err, tc.is) || !errors.As(err, &fe) || fe.Field != tc.field {
				t.Fatalf("err = %v, want %v on field %q", err, tc.is, tc.field)
			}
		})
	}
	if _, err := routing.TrainOrgBundle(context.Background(), "org_a", strings.NewReader(good), routing.OrgTrainConfig{}); !errors.Is(err, routing.ErrUsage) {
		t.Fatalf("no Known: %v, want ErrUsage", err)
	}
}

// orgJSONL generates n evaluation samples for three models: on coding
// prompts only "strong" succeeds, on small talk all three do; "cheap" costs
// a hundredth of "strong".
func orgJSONL(n int) []byte {
	coding := []string{"refactor the Go http handler", "fix the segfault in the C parser", "write a SQL migration adding an index",
		"debug the failing Rust borrow checker error", "implement a binary search tree in Java"}
	chat := []string{"say hello to my grandmother", "what a lovely sunny morning", "thank you so much for the flowers",
		"tell me a short joke about cats", "wish my friend a happy birthday"}
	var buf bytes.Buffer
	for i := range n {
		line := map[string]any{"id": fmt.Sprint(i)}
		if i%2 == 0 {
			line["prompt"] = fmt.Sprintf("%s, variant %d", coding[i/2%len(coding)], i)
			line["task"] = "coding"
			line["scores"] = map[string]float64{"cheap": 0, "mid": float64(i / 2 % 2), "strong": 1}
		} else {
			line["prompt"] = fmt.Sprintf("%s, please %d", chat[i/2%len(chat)], i)
			line["task"] = "chat"
			line["scores"] = map[string]float64{"cheap": 1, "mid": 1, "strong": 1}
		}
		line["costs"] = map[string]float64{"cheap": 0.0001, "mid": 0.001, "strong": 0.01}
		b, _ := json.Marshal(line)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}
