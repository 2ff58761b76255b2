package offline

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/heddle-gw/heddle/routing"
	"io/fs"
	"strconv"
	"strings"

	"github.com/heddle-gw/heddle/catalog"
	"github.com/heddle-gw/heddle/routing/bundles"
	"github.com/heddle-gw/heddle/routing/lexical"
)

// CorpusConfig is routing/bundles/corpus/config.json: how the default bundle
// is trained.
type CorpusConfig struct {
	ID        string   `json:"id"`
	Revision  string   `json:"revision"`
	K         int      `json:"k"`
	Seed      uint64   `json:"seed"`
	Restarts  int      `json:"restarts"`
	Shrinkage float64  `json:"shrinkage"`
	Dim       int      `json:"dim"`
	Date      string   `json:"date"`
	Notes     string   `json:"notes"`
	Sources   []string `json:"sources"`
}

// TrainDefault retrains the default bundle from the corpus embedded with
// routing/bundles and the default catalog's prices. Its encoding equals
// bundles.DefaultJSON byte for byte (on the architecture it was trained on).
func TrainDefault(ctx context.Context) (*routing.Bundle, error) {
	samples, cfg, err := DefaultSamples()
	if err != nil {
		return nil, err
	}
	emb, err := lexical.New(lexical.Params{Dim: cfg.Dim, Seed: cfg.Seed})
	if err != nil {
		return nil, err
	}
	return Train(ctx, TrainConfig{
		ID: cfg.ID, Revision: cfg.Revision, K: cfg.K, Seed: cfg.Seed, Restarts: cfg.Restarts,
		Shrinkage: cfg.Shrinkage, Date: cfg.Date, Sources: cfg.Sources, Notes: cfg.Notes,
	}, samples, emb)
}

// DefaultSamples turns the corpus into training samples: every prompt gets,
// for every model in quality.tsv, the quality of its task type and the cost of
// the task type's typical token counts at the default catalog's prices (output
// tokens times the model's reasoning multiplier).
func DefaultSamples() ([]Sample, CorpusConfig, error) {
	var cfg CorpusConfig
	raw, err := fs.ReadFile(bundles.Corpus, "corpus/config.json")
	if err != nil {
		return nil, cfg, fmt.Errorf("%w: %w", routing.ErrData, err)
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return nil, cfg, fmt.Errorf("%w: config.json: %w", routing.ErrData, err)
	}
	quality, err := readTable("corpus/quality.tsv")
	if err != nil {
		return nil, cfg, err
	}
	tokens, err := readTable("corpus/tokens.tsv")
	if err != nil {
		return nil, cfg, err
	}
	reasoning, err := readTable("corpus/reasoning.tsv")
	if err != nil {
		return nil, cfg, err
	}
	cat, err := catalog.Default()
	if err != nil {
		return nil, cfg, fmt.Errorf("routing: default catalog: %w", err)
	}
	prompts, err := readTable("corpus/prompts.tsv")
	if err != nil {
		return nil, cfg, err
	}
	var samples []Sample
	for i, row := range prompts.rows {
		task, text := row[0], row[1]
		in, err := tokens.num(task, "input")
		if err != nil {
			return nil, cfg, fmt.Errorf("prompts.tsv row %d: %w", i+1, err)
		}
		out, err := tokens.num(task, "output")
		if err != nil {
			return nil, cfg, fmt.Errorf("prompts.tsv row %d: %w", i+1, err)
		}
		s := Sample{ID: strconv.Itoa(i + 1), Prompt: text, Task: task, Quality: map[string]float64{}, Cost: map[string]float64{}}
		for _, qrow := range quality.rows {
			model := qrow[0]
			q, err := quality.num(model, task)
			if err != nil {
				return nil, cfg, err
			}
			m, err := cat.Lookup(model)
			if err != nil {
				return nil, cfg, fmt.Errorf("%w: quality.tsv: %w", routing.ErrData, err)
			}
			mult, err := reasoning.num(model, "output_multiplier")
			if err != nil {
				return nil, cfg, err
			}
			s.Quality[model] = q
			s.Cost[model] = round((in*m.Price.Input+out*mult*m.Price.Output)/1e6, 9)
		}
		samples = append(samples, s)
	}
	return samples, cfg, nil
}

// table is a tab-separated file with a header row; '#' lines are comments.
type table struct {
	header []string
	rows   [][]string
	byKey  map[string][]string
}

func readTable(name string) (*table, error) {
	raw, err := fs.ReadFile(bundles.Corpus, name)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", routing.ErrData, err)
	}
	t := &table{byKey: map[string][]string{}}
	for n, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if t.header == nil {
			t.header = f
			continue
		}
		if len(f) != len(t.header) {
			return nil, fmt.Errorf("%w: %s line %d: %d fields, want %d", routing.ErrData, name, n+1, len(f), len(t.header))
		}
		t.rows = append(t.rows, f)
		t.byKey[f[0]] = f
	}
	if len(t.rows) == 0 {
		return nil, fmt.Errorf("%w: %s is empty", routing.ErrData, name)
	}
	return t, nil
}

func (t *table) num(key, col string) (float64, error) {
	r, ok := t.byKey[key]
	if !ok {
		return 0, fmt.Errorf("%w: no row %q", routing.ErrData, key)
	}
	for i, h := range t.header {
		if h == col {
			v, err := strconv.ParseFloat(r[i], 64)
			if err != nil {
				return 0, fmt.Errorf("%w: row %q column %q: %w", routing.ErrData, key, col, err)
			}
			return v, nil
		}
	}
	return 0, fmt.Errorf("%w: no column %q", routing.ErrData, col)
}
