package routing

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/heddle-gw/heddle/llm"
)

// Cache defaults.
const (
	DefaultCacheTTL                 = time.Hour
	DefaultCacheThreshold           = 0.97
	DefaultCacheMaxPartitionEntries = 32
	// DefaultCacheMaxTextBytes bounds the last user message the semantic tier
	// embeds whole; a longer message is cached by the exact tier only (an
	// embedding of a tail could not tell two long messages apart).
	DefaultCacheMaxTextBytes = 8 << 10
)

// CacheConfig tunes a Cache. Zero values take the defaults.
type CacheConfig struct {
	TTL                 time.Duration // DefaultCacheTTL
	Threshold           float64       // cosine a semantic hit needs, in (0, 1]; DefaultCacheThreshold
	MaxPartitionEntries int           // entries compared per partition; DefaultCacheMaxPartitionEntries
	MaxTextBytes        int           // DefaultCacheMaxTextBytes
	EmbedTimeout        time.Duration // DefaultEmbedTimeout
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

func (c CacheConfig) withDefaults() CacheConfig {
	if c.TTL <= 0 {
		c.TTL = DefaultCacheTTL
	}
	if c.Threshold == 0 {
		c.Threshold = DefaultCacheThreshold
	}
	if c.MaxPartitionEntries <= 0 {
		c.MaxPartitionEntries = DefaultCacheMaxPartitionEntries
	}
	if c.MaxTextBytes <= 0 {
		c.MaxTextBytes = DefaultCacheMaxTextBytes
	}
	if c.EmbedTimeout <= 0 {
		c.EmbedTimeout = DefaultEmbedTimeout
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// Neighbor is one semantic-tier entry of a partition: the embedding of the
// last user message of a stored request and the exact key its entry lives
// under.
type Neighbor struct {
	Key     string
	Numbers string
	Vector  []float32
	Expires time.Time
}

// CacheStore holds cache entries. Implementations are safe for concurrent
// use; every method blocks for at most one round trip and honours ctx.
type CacheStore interface {
	// Get returns the value stored under key; ok is false when there is none
	// or it expired.
	Get(ctx context.Context, key string) (value []byte, ok bool, err error)
	// Set stores value under key for ttl.
	Set(ctx context.Context, key string, value []byte, ttl time.Duration) error
	// Neighbors returns a partition's entries, newest first (possibly
	// including expired ones, which the cache skips).
	Neighbors(ctx context.Context, partition string) ([]Neighbor, error)
	// AddNeighbor adds n to a partition, keeps only its newest max entries
	// and extends the partition's life to ttl.
	AddNeighbor(ctx context.Context, partition string, n Neighbor, ttl time.Duration, max int) error
}

// Cache is the user-scoped response cache of SPEC §6: an exact tier keyed by
// the whole request and a semantic tier that matches the last user message by
// embedding within a partition of everything else. It is safe for
// concurrent use.
type Cache struct {
	store CacheStore
	emb   Embedder // nil: exact tier only
	cfg   CacheConfig
}

// NewCache returns a cache over store. emb embeds the semantic tier; nil
// disables it. It returns an error wrapping ErrUsage for a nil store or a
// threshold outside (0, 1].
func NewCache(store CacheStore, emb Embedder, cfg CacheConfig) (*Cache, error) {
	if store == nil {
		return nil, fmt.Errorf("%w: nil cache store", ErrUsage)
	}
	cfg = cfg.withDefaults()
	if !(cfg.Threshold > 0 && cfg.Threshold <= 1) {
		return nil, fmt.Errorf("%w: cache threshold %v outside (0, 1]", ErrUsage, cfg.Threshold)
	}
	return &Cache{store: store, emb: emb, cfg: cfg}, nil
}

// HitKind says how a lookup ended.
type HitKind string

// Lookup outcomes.
const (
	HitMiss     HitKind = "miss"
	HitExact    HitKind = "exact"
	HitSemantic HitKind = "semantic"
	HitBypass   HitKind = "bypass"
)

// Hit explains a lookup.
type Hit struct {
	Kind HitKind
	// Similarity is the cosine of the best semantic candidate (1 for an
	// exact hit, 0 when no candidate was compared).
	Similarity float64
	// Threshold is the cosine a semantic hit needed.
	Threshold float64
	// Reason says why the cache was bypassed ("no-cache", "no-store",
	// "org") or why the semantic tier did not apply ("no_semantic_tier").
	Reason string
	// Keys are the request's keys; pass them to Store.
	Keys CacheKeys
}

// LookupInput is one cache lookup.
type LookupInput struct {
	Scope   CacheScope
	Request *llm.Request
	// Header holds the caller's headers (Cache-Control, Pragma); nil is fine.
	Header http.Header
	// Bypass is the organisation's setting: true skips the cache entirely.
	Bypass bool
}

// Lookup finds a stored answer for in.Request: first the exact tier, then
// the semantic tier. A bypassed lookup returns Hit{Kind: HitBypass}; so does
// a nil *Cache (reason "disabled"). Errors
// wrap ErrCacheScope (bad scope), ErrCacheStore (storage), ErrCacheEntry
// (undecodable entry) or ErrEmbed/ErrEmbedTimeout; with any error the Hit is
// a miss and the caller serves the request upstream. Lookup never returns
// an entry stored under another scope.
func (c *Cache) Lookup(ctx context.Context, in LookupInput) (Entry, Hit, error) {
	if c == nil {
		return Entry{}, Hit{Kind: HitBypass, Reason: "disabled"}, nil
	}
	hit := Hit{Kind: HitMiss, Threshold: c.cfg.Threshold}
	if reason := lookupBypass(in.Header, in.Bypass); reason != "" {
		hit.Kind, hit.Reason = HitBypass, reason
		return Entry{}, hit, nil
	}
	keys, text, err := CacheKeysOf(in.Scope, in.Request, c.fingerprint(), c.cfg.MaxTextBytes)
	if err != nil {
		return Entry{}, hit, err
	}
	hit.Keys = keys
	if e, ok, err := c.get(ctx, keys.Exact); err != nil || ok {
		if ok {
			hit.Kind, hit.Similarity = HitExact, 1
		}
		return e, hit, err
	}
	if keys.Partition == "" {
		hit.Reason = "no_semantic_tier"
		return Entry{}, hit, nil
	}
	vec, err := EmbedWithTimeout(ctx, c.emb, text, c.cfg.EmbedTimeout)
	if err != nil {
		return Entry{}, hit, err
	}
	hit.Keys.Vector = vec
	ns, err := c.store.Neighbors(ctx, keys.Partition)
	if err != nil {
		return Entry{}, hit, fmt.Errorf("%w: neighbors: %w", ErrCacheStore, err)
	}
	now := c.cfg.Now()
	best, bestKey := -1.0, ""
	for _, n := range ns {
		if n.Numbers != keys.Numbers || !n.Expires.After(now) || len(n.Vector) != len(vec) {
			continue
		}
		if s := cosine(vec, n.Vector); s > best {
			best, bestKey = s, n.Key
		}
	}
	if bestKey == "" {
		return Entry{}, hit, nil
	}
	hit.Similarity = best
	if best < c.cfg.Threshold {
		return Entry{}, hit, nil
	}
	e, ok, err := c.get(ctx, bestKey)
	if ok {
		hit.Kind = HitSemantic
	}
	return e, hit, err
}

func (c *Cache) get(ctx context.Context, key string) (Entry, bool, error) {
	raw, ok, err := c.store.Get(ctx, key)
	if err != nil {
		return Entry{}, false, fmt.Errorf("%w: get: %w", ErrCacheStore, err)
	}
	if !ok {
		return Entry{}, false, nil
	}
	e, err := decodeEntry(raw)
	if err != nil {
		return Entry{}, false, err
	}
	return e, true, nil
}

// StoreInput is one response offered to the cache.
type StoreInput struct {
	Scope   CacheScope
	Request *llm.Request
	Header  http.Header
	Bypass  bool
	// Keys, when set (from Lookup's Hit), spare recomputing the embedding.
	Keys *CacheKeys
	// Status is the HTTP status the caller received; only 200 is stored.
	Status int
	// Response is the complete canonical answer.
	Response *llm.Response
	// Body is the answer in the caller's format as sent (empty when the
	// caller streamed it; a hit then re-encodes Response).
	Body     []byte
	Model    string // catalog model that served it
	Provider string
}

// Store offers a response to the cache and reports whether it was stored.
// Only complete 200 responses are stored: a response whose stop reason is
// end_turn, max_tokens, stop_sequence or tool_use. Cache-Control: no-store
// or no-cache (and Pragma: no-cache) and the organisation's bypass skip
// storing, before any embedding: a caller who will not read the cache does
// not pay for filling it.
// A nil *Cache stores nothing. Errors wrap ErrCacheScope, ErrCacheStore or
// the embedder's error.
func (c *Cache) Store(ctx context.Context, in StoreInput) (bool, error) {
	if c == nil || storeBypass(in.Header, in.Bypass) || in.Status != http.StatusOK || in.Response == nil ||
		!completeStop(in.Response.StopReason) {
		return false, nil
	}
	keys, text, err := CacheKeysOf(in.Scope, in.Request, c.fingerprint(), c.cfg.MaxTextBytes)
	if err != nil {
		return false, err
	}
	if in.Keys != nil && in.Keys.Exact == keys.Exact && in.Keys.Partition == keys.Partition {
		keys.Vector = in.Keys.Vector
	}
	now := c.cfg.Now()
	raw, err := encodeEntry(Entry{Format: in.Scope.Format, Model: in.Model, Provider: in.Provider,
		StoredAt: now, Response: in.Response, Body: in.Body})
	if err != nil {
		return false, err
	}
	if err := c.store.Set(ctx, keys.Exact, raw, c.cfg.TTL); err != nil {
		return false, fmt.Errorf("%w: set: %w", ErrCacheStore, err)
	}
	if keys.Partition == "" {
		return true, nil
	}
	if keys.Vector == nil {
		if keys.Vector, err = EmbedWithTimeout(ctx, c.emb, text, c.cfg.EmbedTimeout); err != nil {
			return true, err
		}
	}
	n := Neighbor{Key: keys.Exact, Numbers: keys.Numbers, Vector: keys.Vector, Expires: now.Add(c.cfg.TTL)}
	if err := c.store.AddNeighbor(ctx, keys.Partition, n, c.cfg.TTL, c.cfg.MaxPartitionEntries); err != nil {
		return true, fmt.Errorf("%w: add neighbor: %w", ErrCacheStore, err)
	}
	return true, nil
}

func (c *Cache) fingerprint() string {
	if c.emb == nil {
		return ""
	}
	return c.emb.ID() + "/" + c.emb.Fingerprint()
}

func completeStop(s llm.StopReason) bool {
	switch s {
	case llm.StopEnd, llm.StopMaxTokens, llm.StopSequence, llm.StopToolUse:
		return true
	}
	return false
}

// lookupBypass returns why a lookup is skipped ("" when it is not).
func lookupBypass(h http.Header, org bool) string {
	if org {
		return "org"
	}
	noCache, noStore := cacheDirectives(h)
	switch {
	case noStore:
		return "no-store"
	case noCache:
		return "no-cache"
	}
	return ""
}

func storeBypass(h http.Header, org bool) bool {
	return lookupBypass(h, org) != ""
}

// cacheDirectives reads the request's Cache-Control (and the legacy
// Pragma: no-cache).
func cacheDirectives(h http.Header) (noCache, noStore bool) {
	for _, v := range h.Values("Cache-Control") {
		for _, d := range strings.Split(v, ",") {
			switch strings.ToLower(strings.TrimSpace(d)) {
			case "no-cache":
				noCache = true
			case "no-store":
				noStore = true
			}
		}
	}
	for _, v := range h.Values("Pragma") {
		if strings.EqualFold(strings.TrimSpace(v), "no-cache") {
			noCache = true
		}
	}
	return noCache, noStore
}

// cosine is the cosine similarity of a and b (0 when either is zero).
func cosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		ab += x * y
		aa += x * x
		bb += y * y
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}
