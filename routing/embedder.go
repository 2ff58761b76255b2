package routing

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// DefaultEmbedTimeout bounds one embed when no timeout is configured.
const DefaultEmbedTimeout = 200 * time.Millisecond

// Embedder turns text into a vector. Implementations are safe for concurrent
// use.
type Embedder interface {
	// ID names the embedding algorithm or model family ("lexical-v1", "hugot").
	ID() string
	// Dim is the length of every vector Embed returns.
	Dim() int
	// Fingerprint identifies the exact embedding function (algorithm version,
	// parameters, model file hashes): equal fingerprints embed identically.
	Fingerprint() string
	// Embed returns the L2-normalised embedding of text (the zero vector when
	// text has no features). It blocks for the duration of the computation and
	// should honour ctx.
	Embed(ctx context.Context, text string) ([]float32, error)
}

// Inline is an optional ability of an Embedder whose Embed is plain CPU work
// bounded by the length of its input (lexical-v1). EmbedWithTimeout runs such
// an embedder on the caller's goroutine for texts up to InlineMaxBytes, with
// no goroutine or timer, and still fails with ErrEmbedTimeout if the call took
// longer than the timeout.
type Inline interface {
	InlineEmbed() bool
}

// Into is an optional ability of an Inline embedder: EmbedInto writes the
// embedding into a caller's buffer of Dim elements (lexical-v1, wordvec), so
// the router reuses one buffer per decision instead of allocating a vector.
type Into interface {
	EmbedInto(out []float32, text string)
}

// vecPool holds the routers' embedding buffers (*[]float32).
var vecPool = sync.Pool{New: func() any { return new([]float32) }}

// embedPooled is EmbedWithTimeout for an Inline embedder with EmbedInto and
// a text up to InlineMaxBytes, into a pooled buffer; releaseVec(buf)
// returns the buffer, after which the vector must not be used. Other
// embedders take EmbedWithTimeout and a nil buf.
func embedPooled(ctx context.Context, e Embedder, text string, d time.Duration) (vec []float32, buf *[]float32, err error) {
	in, inline := e.(Inline)
	into, ok := e.(Into)
	if !ok || !inline || !in.InlineEmbed() || len(text) > InlineMaxBytes {
		vec, err = EmbedWithTimeout(ctx, e, text, d)
		return vec, nil, err
	}
	if d <= 0 {
		d = DefaultEmbedTimeout
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrEmbed, err)
	}
	buf = vecPool.Get().(*[]float32)
	if cap(*buf) < e.Dim() {
		*buf = make([]float32, e.Dim())
	}
	vec = (*buf)[:e.Dim()]
	start := time.Now()
	into.EmbedInto(vec, text)
	if err := overran(start, d); err != nil {
		vecPool.Put(buf)
		return nil, nil, err
	}
	return vec, buf, nil
}

// overran is the timeout error of an inline embedding that started at start
// and ran past d, else nil: an inline embedder runs on the caller's
// goroutine, so its time limit is checked once it returned.
func overran(start time.Time, d time.Duration) error {
	if time.Since(start) > d {
		return fmt.Errorf("%w after %v: %w", ErrEmbedTimeout, d, context.DeadlineExceeded)
	}
	return nil
}

// releaseVec returns an embedPooled buffer to the pool (nil: nothing).
func releaseVec(buf *[]float32) {
	if buf != nil {
		vecPool.Put(buf)
	}
}

// InlineMaxBytes bounds the texts an Inline embedder embeds on the caller's
// goroutine; longer texts take the goroutine-and-timer path.
const InlineMaxBytes = 64 << 10

// EmbedWithTimeout embeds text, giving up after d (DefaultEmbedTimeout when
// d <= 0) even if the embedder ignores its context. A timeout returns an error
// wrapping ErrEmbedTimeout and context.DeadlineExceeded; any other failure
// wraps ErrEmbed. A late result of a timed-out embed is discarded.
func EmbedWithTimeout(ctx context.Context, e Embedder, text string, d time.Duration) ([]float32, error) {
	if d <= 0 {
		d = DefaultEmbedTimeout
	}
	if in, ok := e.(Inline); ok && in.InlineEmbed() && len(text) <= InlineMaxBytes {
		start := time.Now()
		v, err := e.Embed(ctx, text)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrEmbed, err)
		}
		if err := overran(start, d); err != nil {
			return nil, err
		}
		switch {
		case len(v) != e.Dim():
			return nil, fmt.Errorf("%w: got %d dimensions, want %d", ErrEmbed, len(v), e.Dim())
		}
		return v, nil
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()

	type result struct {
		v   []float32
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := e.Embed(ctx, text)
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			if ctx.Err() == context.DeadlineExceeded {
				return nil, fmt.Errorf("%w after %v: %w", ErrEmbedTimeout, d, context.DeadlineExceeded)
			}
			return nil, fmt.Errorf("%w: %w", ErrEmbed, r.err)
		}
		if len(r.v) != e.Dim() {
			return nil, fmt.Errorf("%w: got %d dimensions, want %d", ErrEmbed, len(r.v), e.Dim())
		}
		return r.v, nil
	case <-ctx.Done():
		if ctx.Err() == context.DeadlineExceeded {
			return nil, fmt.Errorf("%w after %v: %w", ErrEmbedTimeout, d, context.DeadlineExceeded)
		}
		return nil, fmt.Errorf("%w: %w", ErrEmbed, ctx.Err())
	}
}
