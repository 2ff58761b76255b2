package offline

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/heddle-gw/heddle/llm"
	"github.com/heddle-gw/heddle/routing"
)

// Kinds of a cache-set pair.
const (
	// PairHit is the same question reworded: the semantic tier should serve
	// one's answer for the other.
	PairHit = "hit"
	// PairMiss is another question on the same topic.
	PairMiss = "miss"
	// PairNear is a near-duplicate with another answer (Why says how it
	// differs: numbers, negation, entity, code): serving it is a wrong hit.
	PairNear = "near"
)

// CachePair is one line of the semantic cache's evaluation set
// (routing/testdata/paraphrases.jsonl).
type CachePair struct {
	Kind  string `json:"kind"`
	Why   string `json:"why,omitempty"`
	Topic string `json:"topic,omitempty"`
	A     string `json:"a"`
	B     string `json:"b"`
}

// ReadCachePairs reads the set, one JSON object per line.
func ReadCachePairs(r io.Reader) ([]CachePair, error) {
	var out []CachePair
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		var p CachePair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			return nil, fmt.Errorf("%w: line %d: %w", routing.ErrData, line, err)
		}
		if !slices.Contains([]string{PairHit, PairMiss, PairNear}, p.Kind) || p.A == "" || p.B == "" {
			return nil, fmt.Errorf("%w: line %d: kind %q, a and b are required", routing.ErrData, line, p.Kind)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", routing.ErrData, err)
	}
	return out, nil
}

// CacheSetRates is how the semantic tier did on the set: Served counts, per
// kind (and per Why for near-duplicates), the pairs whose second question
// was answered with the first one's answer; Pairs counts the pairs.
type CacheSetRates struct {
	Embedder  string         `json:"embedder"`
	Threshold float64        `json:"threshold"`
	Pairs     map[string]int `json:"pairs"`
	Served    map[string]int `json:"served"`
	// Wrong lists the wrongly served pairs (misses and near-duplicates).
	Wrong []CachePair `json:"wrong,omitempty"`
}

// HitRate is the share of reworded pairs served.
func (r CacheSetRates) HitRate() float64 { return ratio(r.Served[PairHit], r.Pairs[PairHit]) }

// WrongHitRate is the share of misses and near-duplicates served.
func (r CacheSetRates) WrongHitRate() float64 {
	return ratio(r.Served[PairMiss]+r.Served[PairNear], r.Pairs[PairMiss]+r.Pairs[PairNear])
}

func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

// MeasureCacheSet runs every pair through a fresh routing.Cache (in-memory
// store, emb, threshold): store an answer to A, look up B in the same
// conversation and scope, and count what was served.
func MeasureCacheSet(ctx context.Context, emb routing.Embedder, threshold float64, pairs []CachePair) (CacheSetRates, error) {
	r := CacheSetRates{Embedder: emb.ID(), Threshold: threshold, Pairs: map[string]int{}, Served: map[string]int{}}
	scope := routing.CacheScope{OrgID: "org", KeyID: "key", User: "user", Format: llm.FormatChat}
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	for _, p := range pairs {
		c, err := routing.NewCache(routing.NewMemoryCacheStore(0, 0, func() time.Time { return now }), emb,
			// Offline, a slow embedder is measured rather than timed out.
			routing.CacheConfig{Threshold: threshold, EmbedTimeout: time.Minute, Now: func() time.Time { return now }})
		if err != nil {
			return r, err
		}
		resp := &llm.Response{ID: "r", Model: "m", StopReason: llm.StopEnd, Content: []llm.Part{{Type: llm.PartText, Text: "answer to " + p.A}}}
		if _, err := c.Store(ctx, routing.StoreInput{Scope: scope, Request: cacheSetRequest(p.A), Status: http.StatusOK, Response: resp, Model: "m"}); err != nil {
			return r, err
		}
		_, hit, err := c.Lookup(ctx, routing.LookupInput{Scope: scope, Request: cacheSetRequest(p.B)})
		if err != nil {
			return r, err
		}
		key := p.Kind
		if p.Kind == PairNear {
			key = PairNear + ":" + p.Why
			r.Pairs[PairNear]++
		}
		r.Pairs[key]++
		if hit.Kind == routing.HitExact || hit.Kind == routing.HitSemantic {
			r.Served[key]++
			if p.Kind == PairNear {
				r.Served[PairNear]++
			}
			if p.Kind != PairHit {
				r.Wrong = append(r.Wrong, p)
			}
		}
	}
	return r, nil
}

func cacheSetRequest(q string) *llm.Request {
	return &llm.Request{Model: "auto", MaxTokens: 256, Messages: []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Part{{Type: llm.PartText, Text: q}}},
	}}
}

// Write prints the rates in one line per kind.
func (r CacheSetRates) Write(w io.Writer) error {
	_, err := fmt.Fprintf(w, "%s at threshold %.2f: hit rate %d/%d = %.1f%%, wrong-hit rate %d/%d = %.1f%%",
		r.Embedder, r.Threshold, r.Served[PairHit], r.Pairs[PairHit], 100*r.HitRate(),
		r.Served[PairMiss]+r.Served[PairNear], r.Pairs[PairMiss]+r.Pairs[PairNear], 100*r.WrongHitRate())
	if err != nil {
		return err
	}
	keys := make([]string, 0, len(r.Pairs))
	for k := range r.Pairs {
		if k != PairHit && k != PairNear {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if _, err := fmt.Fprintf(w, "; %s %d/%d", k, r.Served[k], r.Pairs[k]); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintln(w)
	return err
}
