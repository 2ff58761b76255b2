package offline

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/heddle-gw/heddle/routing"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/heddle-gw/heddle/routing/lexical"
)

const (
	// orgSamplesPerCluster sets k from the sample count: one cluster per
	// this many samples, at least 2, at most routing.MaxOrgK.
	orgSamplesPerCluster = 25
	orgMaxLineBytes      = 1 << 20
)

// OrgTrainConfig bounds and tunes TrainOrgBundle. Zero values take the
// defaults named beside the fields.
type OrgTrainConfig struct {
	// Known reports whether a model id is in the catalog; required.
	Known      func(model string) bool
	MaxBytes   int64 // DefaultOrgMaxBytes
	MaxSamples int   // DefaultOrgMaxSamples
	MinSamples int   // DefaultOrgMinSamples
	MinModels  int   // DefaultOrgMinModels
	// Seed seeds the lexical-v1 hashes and k-means (default 1).
	Seed uint64
	// Embedder is the embedder to train with: the one the gateway routes
	// organisation bundles with (HEDDLE_EMBEDDER), so the bundle records
	// its id and fingerprint and trains the predictor on its vectors as
	// `heddle bundle train --embedder` does. nil (or a lexical-v1 embedder)
	// trains a fresh lexical-v1 of Dim and Seed, fitted on the prompts.
	Embedder routing.Embedder
	// K overrides the cluster count (default: samples/25 within [2, MaxOrgK]).
	K int
	// Restarts and MaxIter bound k-means (defaults 3 and 50: a training
	// job holds one of the replica's few training workers).
	Restarts int
	MaxIter  int
	// Shrinkage is m of the shrinkage rule (default 3, as the default bundle).
	Shrinkage float64
	// Dim is the lexical-v1 dimension (lexical.DefaultDim).
	Dim int
	// Now is the clock for the bundle's date and revision (time.Now).
	Now func() time.Time
}

func (c *OrgTrainConfig) defaults() {
	if c.MaxBytes <= 0 {
		c.MaxBytes = routing.DefaultOrgMaxBytes
	}
	if c.MaxSamples <= 0 {
		c.MaxSamples = routing.DefaultOrgMaxSamples
	}
	if c.MinSamples <= 0 {
		c.MinSamples = routing.DefaultOrgMinSamples
	}
	if c.MinModels <= 0 {
		c.MinModels = routing.DefaultOrgMinModels
	}
	if c.Seed == 0 {
		c.Seed = 1
	}
	if c.Restarts <= 0 {
		c.Restarts = 3
	}
	if c.MaxIter <= 0 {
		c.MaxIter = 50
	}
	if c.Shrinkage <= 0 {
		c.Shrinkage = 3
	}
	if c.Dim <= 0 {
		c.Dim = lexical.DefaultDim
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// OrgK is the cluster count TrainOrgBundle uses for n samples.
func OrgK(n int) int {
	return min(max(n/orgSamplesPerCluster, 2), routing.MaxOrgK)
}

// TrainOrgBundle trains orgID's bundle from its evaluation data: JSONL in the
// format of ReadJSONL, where every scored model also needs a cost (US
// dollars per query) and must be known to the catalog. It reads at most
// cfg.MaxBytes and cfg.MaxSamples (ErrDataTooLarge), needs cfg.MinSamples
// samples and cfg.MinModels models, fits a fresh lexical-v1 embedder on the
// prompts and clusters them (see Train), with the scorer kind chosen by
// cross-validation on the upload (ResolveScorer; the per-query predictor
// is trained as for `heddle bundle train`). Data errors are *FieldError naming
// the line and field ("line 17: scores") and wrap ErrData. The bundle's id is
// derived from the organisation, data hash and seed, so the same upload
// trains the same bundle; its revision is the training time.
func TrainOrgBundle(ctx context.Context, orgID string, jsonl io.Reader, cfg OrgTrainConfig) (*routing.Bundle, error) {
	d, err := ParseOrgData(orgID, jsonl, cfg)
	if err != nil {
		return nil, err
	}
	return d.Train(ctx, nil)
}

// OrgData is an organisation's checked evaluation data, ready to train.
type OrgData struct {
	orgID   string
	samples []Sample
	cfg     OrgTrainConfig
}

// ParseOrgData reads and checks orgID's evaluation data: JSONL in the format
// of ReadJSONL, where every scored model also needs a cost (US dollars per
// query) and must be known to the catalog. It reads at most cfg.MaxBytes and
// cfg.MaxSamples (ErrDataTooLarge), and needs cfg.MinSamples samples and
// cfg.MinModels models. Data errors are *FieldError naming the line and
// field ("line 17: scores") and wrap ErrData. It is fast next to Train: it
// only parses.
func ParseOrgData(orgID string, jsonl io.Reader, cfg OrgTrainConfig) (*OrgData, error) {
	cfg.defaults()
	if orgID == "" || cfg.Known == nil {
		return nil, fmt.Errorf("%w: organisation and known-model set are required", routing.ErrUsage)
	}
	samples, err := readOrgJSONL(jsonl, cfg)
	if err != nil {
		return nil, err
	}
	return &OrgData{orgID: orgID, samples: samples, cfg: cfg}, nil
}

// Samples is the number of samples d trains on.
func (d *OrgData) Samples() int { return len(d.samples) }

// WithEmbedder returns d to be trained with emb (see
// OrgTrainConfig.Embedder); a nil emb returns d unchanged.
func (d *OrgData) WithEmbedder(emb routing.Embedder) *OrgData {
	if emb == nil {
		return d
	}
	c := *d
	c.cfg.Embedder = emb
	return &c
}

// Train embeds d's prompts with its configuration's Embedder (a fresh
// lexical-v1 fitted on them when nil) and clusters them (see Train), telling progress (when not nil) its stage and percent. The
// bundle's id is derived from the organisation, data hash and seed, so the
// same upload trains the same bundle; its revision is the training time. It
// stops with ctx's error (cancelled, past its deadline) between steps.
func (d *OrgData) Train(ctx context.Context, progress func(stage string, percent int)) (*routing.Bundle, error) {
	cfg := d.cfg
	emb := cfg.Embedder
	if _, isLexical := emb.(*lexical.Embedder); emb == nil || isLexical {
		var err error
		if emb, err = lexical.New(lexical.Params{Dim: cfg.Dim, Seed: cfg.Seed}); err != nil {
			return nil, fmt.Errorf("%w: %w", routing.ErrUsage, err)
		}
	}
	now := cfg.Now().UTC()
	hash := DataHash(d.samples)
	idSum := sha256.Sum256([]byte(d.orgID + "\x00" + hash + "\x00" + strconv.FormatUint(cfg.Seed, 10)))
	k := cfg.K
	if k <= 0 {
		k = OrgK(len(d.samples))
	}
	cfg0 := TrainConfig{
		ID:        "org-" + hex.EncodeToString(idSum[:8]),
		Revision:  now.Format("20060102T150405Z"),
		K:         min(k, routing.MaxOrgK),
		Seed:      cfg.Seed,
		Restarts:  cfg.Restarts,
		MaxIter:   cfg.MaxIter,
		Shrinkage: cfg.Shrinkage,
		Scorer:    ScorerAuto,
		Date:      now.Format(time.DateOnly),
		Sources:   []string{"organisation evaluation data " + d.orgID},
		Notes:     "trained from an organisation's uploaded evaluation data",
	}
	embedderOf := func(context.Context, uint64) (routing.Embedder, error) { return emb, nil }
	tc, _, err := ResolveScorer(ctx, cfg0, d.samples, embedderOf)
	if err != nil {
		return nil, err
	}
	tc.Progress = jobProgress(progress) // the training itself, not the selection's folds
	return Train(ctx, tc, d.samples, emb)
}

// readOrgJSONL parses and checks uploaded samples line by line.
func readOrgJSONL(r io.Reader, cfg OrgTrainConfig) ([]Sample, error) {
	data, err := io.ReadAll(io.LimitReader(r, cfg.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: read: %w", routing.ErrData, err)
	}
	if int64(len(data)) > cfg.MaxBytes {
		return nil, &routing.FieldError{Field: "body", Message: fmt.Sprintf("larger than %d bytes", cfg.MaxBytes), Err: routing.ErrDataTooLarge}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), orgMaxLineBytes)
	var out []Sample
	models := map[string]bool{}
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		if len(out) == cfg.MaxSamples {
			return nil, &routing.FieldError{Field: "body", Message: fmt.Sprintf("more than %d samples", cfg.MaxSamples), Err: routing.ErrDataTooLarge}
		}
		s, err := orgSample(text, line, cfg.Known)
		if err != nil {
			return nil, err
		}
		for m := range s.Quality {
			models[m] = true
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &routing.FieldError{Field: "body", Message: fmt.Sprintf("a line is longer than %d bytes", orgMaxLineBytes), Err: routing.ErrDataTooLarge}
		}
		return nil, fmt.Errorf("%w: %w", routing.ErrData, err)
	}
	if len(out) < cfg.MinSamples {
		return nil, &routing.FieldError{Field: "body", Message: fmt.Sprintf("%d samples, at least %d are needed", len(out), cfg.MinSamples), Err: routing.ErrData}
	}
	if len(models) < cfg.MinModels {
		return nil, &routing.FieldError{Field: "body", Message: fmt.Sprintf("%d models scored, at least %d are needed", len(models), cfg.MinModels), Err: routing.ErrData}
	}
	return out, nil
}

// orgSample checks one line: a prompt, and for every scored model a finite
// score, a finite non-negative cost, and a known model id.
func orgSample(text []byte, line int, known func(string) bool) (Sample, error) {
	bad := func(field, format string, args ...any) error {
		return &routing.FieldError{Field: fmt.Sprintf("line %d: %s", line, field), Message: fmt.Sprintf(format, args...), Err: routing.ErrData}
	}
	var j jsonlSample
	if err := json.Unmarshal(text, &j); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return Sample{}, bad(te.Field, "has the wrong type")
		}
		return Sample{}, bad("json", "not a JSON object")
	}
	if j.Prompt == "" {
		return Sample{}, bad("prompt", "is required")
	}
	if len(j.Scores) == 0 {
		return Sample{}, bad("scores", "is required")
	}
	s := Sample{ID: j.ID, Prompt: j.Prompt, Task: j.Task, Turn: routing.TurnType(j.Turn), Quality: map[string]float64{}, Cost: map[string]float64{}}
	if !knownTurn(s.Turn) {
		return Sample{}, bad("turn", "is not one of main, tool_result, sub_agent, compaction, probe, title")
	}
	for _, m := range sortedKeys(j.Scores) {
		q := j.Scores[m]
		c, ok := j.Costs[m]
		switch {
		case !known(m):
			return Sample{}, bad("scores."+m, "unknown model")
		case math.IsNaN(q) || math.IsInf(q, 0):
			return Sample{}, bad("scores."+m, "must be a finite number")
		case !ok:
			return Sample{}, bad("costs."+m, "is missing for a scored model")
		case math.IsNaN(c) || math.IsInf(c, 0) || c < 0:
			return Sample{}, bad("costs."+m, "must be a non-negative number of US dollars")
		}
		s.Quality[m], s.Cost[m] = q, c
	}
	for _, m := range sortedKeys(j.Costs) {
		if _, ok := j.Scores[m]; !ok {
			return Sample{}, bad("costs."+m, "has no score")
		}
	}
	return s, nil
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// jobProgress turns training's per-stage counts into a job's stage and
// percent of the whole (embedShare, trainShare); nil stays silent.
func jobProgress(report func(stage string, percent int)) func(stage string, done, total int) {
	if report == nil {
		return nil
	}
	return func(stage string, done, total int) {
		if total <= 0 {
			return
		}
		switch stage {
		case StageEmbed:
			report(routing.StageEmbedding, embedShare*done/total)
		case StageKMeans:
			report(routing.StageClustering, embedShare+(trainShare-embedShare)*done/total)
		}
	}
}

// knownTurn reports whether t is "" or a routing.TurnType.
func knownTurn(t routing.TurnType) bool {
	switch t {
	case "", routing.TurnMain, routing.TurnToolResult, routing.TurnSubAgent, routing.TurnCompaction, routing.TurnProbe, routing.TurnTitle:
		return true
	}
	return false
}
