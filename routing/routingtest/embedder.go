package routingtest

import (
	"context"
	"sync/atomic"

	"github.com/heddle-gw/heddle/routing"
)

// CountingEmbedder wraps an embedder and counts its Embed calls (N), for
// tests of paths that must not embed. Safe for concurrent use.
type CountingEmbedder struct {
	routing.Embedder
	N atomic.Int32
}

// Embed counts the call and embeds with the wrapped embedder.
func (c *CountingEmbedder) Embed(ctx context.Context, s string) ([]float32, error) {
	c.N.Add(1)
	return c.Embedder.Embed(ctx, s)
}
