package routing

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/heddle-gw/heddle/routing/lexical"
)

// Defaults of the train and eval commands, chosen by cross-validation on the
// RouterBench training split only (see routing/testdata/README.md).
const (
	DefaultK         = 32
	DefaultRestarts  = 5
	DefaultShrinkage = 20.0
)

// EmbedderOpener opens a non-built-in embedder from a spec such as
// "hugot:/path/to/model". The composition root provides it (hugot must not be
// imported by this package).
type EmbedderOpener func(ctx context.Context, spec string) (Embedder, error)

// Puller downloads a model directory (routing/hfpull.Pull fits).
type Puller func(ctx context.Context, name, destDir, baseURL string) ([]string, error)

// CLIOption adds an adapter to a command.
type CLIOption func(*cliEnv)

type cliEnv struct {
	open EmbedderOpener
	pull Puller
}

// WithEmbedderOpener lets train and eval use embedders other than lexical-v1.
func WithEmbedderOpener(o EmbedderOpener) CLIOption { return func(e *cliEnv) { e.open = o } }

// WithPuller gives models pull its downloader.
func WithPuller(p Puller) CLIOption { return func(e *cliEnv) { e.pull = p } }

func newEnv(opts []CLIOption) cliEnv {
	var e cliEnv
	for _, o := range opts {
		o(&e)
	}
	return e
}

// trainFlags are shared by train and eval.
type trainFlags struct {
	k, restarts, dim int
	shrinkage        float64
	embedder         string
	lastBlock        bool
}

func (t *trainFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&t.k, "k", DefaultK, "number of clusters")
	fs.IntVar(&t.restarts, "restarts", DefaultRestarts, "k-means restarts (lowest inertia wins)")
	fs.IntVar(&t.dim, "dim", lexical.DefaultDim, "lexical-v1 dimension")
	fs.Float64Var(&t.shrinkage, "shrinkage", DefaultShrinkage, "pseudo-count m shrinking small clusters toward the global mean")
	fs.StringVar(&t.embedder, "embedder", lexical.ID, `embedder: "lexical-v1" or a spec the binary can open, e.g. "hugot:DIR"`)
	fs.BoolVar(&t.lastBlock, "last-block", true, "CSV: embed only the prompt's block after its last blank line")
}

func (t *trainFlags) openEmbedder(ctx context.Context, env cliEnv, seed uint64) (Embedder, error) {
	if t.embedder == lexical.ID {
		return lexical.New(lexical.Params{Dim: t.dim, Seed: seed})
	}
	if env.open == nil {
		return nil, fmt.Errorf("%w: embedder %q is not available in this binary", ErrUsage, t.embedder)
	}
	return env.open(ctx, t.embedder)
}

// TrainCommand implements `heddle bundle train`: it reads samples (--data, a
// comma-separated list of RouterBench .csv and .jsonl files), trains a bundle
// and writes it to --out ("-" for stdout). With --default it retrains the
// embedded default bundle from the corpus in the repository (the output is
// byte-for-byte the embedded file).
func TrainCommand(ctx context.Context, args []string, stdout io.Writer, opts ...CLIOption) error {
	env := newEnv(opts)
	fs := flag.NewFlagSet("bundle train", flag.ContinueOnError)
	fs.SetOutput(stdout)
	var tf trainFlags
	tf.register(fs)
	data := fs.String("data", "", "training data files (.csv RouterBench layout, .jsonl), comma-separated")
	out := fs.String("out", "", `output bundle file ("-" for stdout)`)
	seed := fs.Uint64("seed", 1, "k-means and hashing seed")
	id := fs.String("id", "custom", "bundle id")
	rev := fs.String("revision", "1", "bundle revision")
	date := fs.String("date", "", "training date recorded in the bundle (YYYY-MM-DD)")
	notes := fs.String("notes", "", "free-form notes recorded in the bundle")
	def := fs.Bool("default", false, "retrain the embedded default bundle from routing/bundles/corpus")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if *out == "" {
		return fmt.Errorf("%w: --out is required", ErrUsage)
	}
	var b *Bundle
	var err error
	if *def {
		b, err = TrainDefault(ctx)
	} else {
		b, err = trainFromFlags(ctx, env, &tf, *data, TrainConfig{
			ID: *id, Revision: *rev, K: tf.k, Seed: *seed, Restarts: tf.restarts,
			Shrinkage: tf.shrinkage, Date: *date, Notes: *notes,
		})
	}
	if err != nil {
		return err
	}
	data2, err := b.Bytes()
	if err != nil {
		return err
	}
	if *out == "-" {
		_, err = stdout.Write(data2)
		return err
	}
	if err := os.WriteFile(*out, data2, 0o644); err != nil {
		return fmt.Errorf("routing: write bundle: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s: %d clusters, %d models, %d samples, embedder %s (%s)\n",
		*out, len(b.Clusters), len(b.Models), b.Training.Samples, b.Embedder.ID, b.Embedder.Fingerprint)
	return nil
}

func trainFromFlags(ctx context.Context, env cliEnv, tf *trainFlags, files string, cfg TrainConfig) (*Bundle, error) {
	samples, err := ReadSampleFiles(files, tf.lastBlock)
	if err != nil {
		return nil, err
	}
	emb, err := tf.openEmbedder(ctx, env, cfg.Seed)
	if err != nil {
		return nil, err
	}
	return Train(ctx, cfg, samples, emb)
}

// EvalCommand implements `heddle bundle eval`: for every seed of --seeds it
// trains on --train and evaluates on --test, then prints the Avengers-Pro
// Table 1 layout averaged over the seeds.
func EvalCommand(ctx context.Context, args []string, stdout io.Writer, opts ...CLIOption) error {
	env := newEnv(opts)
	fs := flag.NewFlagSet("bundle eval", flag.ContinueOnError)
	fs.SetOutput(stdout)
	var tf trainFlags
	tf.register(fs)
	trainFiles := fs.String("train", "", "training data files, comma-separated")
	testFiles := fs.String("test", "", "test data files, comma-separated")
	seeds := fs.String("seeds", "1,2,3", "comma-separated seeds")
	topP := fs.Int("top-p", DefaultTopP, "nearest clusters used")
	beta := fs.Float64("beta", DefaultBeta, "softmax sharpness")
	signal := fs.String("signal", "", "also print the per-query signal of the embedder on the training data for these k (e.g. 5,20)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	seedList, err := parseSeeds(*seeds)
	if err != nil {
		return err
	}
	train, err := ReadSampleFiles(*trainFiles, tf.lastBlock)
	if err != nil {
		return fmt.Errorf("train data: %w", err)
	}
	test, err := ReadSampleFiles(*testFiles, tf.lastBlock)
	if err != nil {
		return fmt.Errorf("test data: %w", err)
	}
	var signalKs []int
	if *signal != "" {
		if signalKs, err = parseInts(*signal); err != nil {
			return err
		}
	}
	var reports []*EvalReport
	var signalRows []SignalRow
	for _, seed := range seedList {
		emb, err := tf.openEmbedder(ctx, env, seed)
		if err != nil {
			return err
		}
		cfg := TrainConfig{ID: "eval", K: tf.k, Seed: seed, Restarts: tf.restarts, Shrinkage: tf.shrinkage}
		b, err := Train(ctx, cfg, train, emb)
		if err != nil {
			return err
		}
		run, err := BundleEmbedder(b, emb)
		if err != nil {
			return err
		}
		rep, err := Evaluate(ctx, b, run, test, EvalConfig{Router: Config{TopP: *topP, Beta: *beta}})
		if err != nil {
			return err
		}
		if signalKs != nil && signalRows == nil { // the first seed's embedder (the signal hardly depends on it)
			if signalRows, err = QuerySignal(ctx, run, train, b.Models, signalKs); err != nil {
				return err
			}
		}
		reports = append(reports, rep)
	}
	sum, err := Summarise(reports)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "bundle eval: train %d samples, test %d; embedder %s; k=%d restarts=%d shrinkage=%g top-p=%d beta=%g; seeds %s\n",
		len(train), len(test), tf.embedder, tf.k, tf.restarts, tf.shrinkage, *topP, *beta, *seeds)
	if err := sum.Write(stdout); err != nil {
		return err
	}
	if signalKs != nil {
		return WriteSignal(stdout, signalRows, signalKs)
	}
	return nil
}

// parseInts reads a comma-separated list of positive integers.
func parseInts(list string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%w: %q is not a positive integer", ErrUsage, f)
		}
		out = append(out, n)
	}
	return out, nil
}

// ModelsPullCommand implements `heddle models pull NAME [--dest DIR]
// [--base-url URL]` with the Puller given by WithPuller.
func ModelsPullCommand(ctx context.Context, args []string, stdout io.Writer, opts ...CLIOption) error {
	env := newEnv(opts)
	fs := flag.NewFlagSet("models pull", flag.ContinueOnError)
	fs.SetOutput(stdout)
	dest := fs.String("dest", "", "destination directory (default models/NAME)")
	base := fs.String("base-url", "https://huggingface.co", "Hugging Face hub base URL")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", ErrUsage, err)
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: models pull NAME (for example sentence-transformers/all-MiniLM-L6-v2)", ErrUsage)
	}
	if env.pull == nil {
		return fmt.Errorf("%w: no model puller in this binary", ErrUsage)
	}
	name := fs.Arg(0)
	dir := *dest
	if dir == "" {
		dir = filepath.Join("models", filepath.FromSlash(name))
	}
	files, err := env.pull(ctx, name, dir, *base)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "pulled %s into %s: %s\n", name, dir, strings.Join(files, ", "))
	return nil
}

// ReadSampleFiles reads and concatenates comma-separated sample files: .jsonl
// files with ReadJSONL, anything else with ReadRouterBench.
func ReadSampleFiles(list string, lastBlock bool) ([]Sample, error) {
	if strings.TrimSpace(list) == "" {
		return nil, fmt.Errorf("%w: no data files given", ErrUsage)
	}
	var all []Sample
	for _, path := range strings.Split(list, ",") {
		path = strings.TrimSpace(path)
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("routing: %w", err)
		}
		var s []Sample
		if strings.HasSuffix(path, ".jsonl") {
			s, err = ReadJSONL(f)
		} else {
			s, err = ReadRouterBench(f, lastBlock)
		}
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		all = append(all, s...)
	}
	return all, nil
}

func parseSeeds(s string) ([]uint64, error) {
	var out []uint64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: seed %q: %w", ErrUsage, f, err)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, errors.Join(ErrUsage, errors.New("no seeds"))
	}
	return out, nil
}
