package routing

import (
	"bytes"
	"sync"

	"github.com/heddle-gw/heddle/routing/bundles"
)

var defaultBundle = sync.OnceValues(func() (*Bundle, error) {
	return LoadBundle(bytes.NewReader(bundles.DefaultJSON))
})

// DefaultBundle returns the bundle embedded in the binary (trained from
// routing/bundles/corpus for the default catalog's models). The returned
// bundle is shared; do not modify it.
func DefaultBundle() (*Bundle, error) { return defaultBundle() }

// DefaultRouter returns a router over the default bundle and its lexical-v1
// embedder.
func DefaultRouter(cfg Config) (*Router, error) {
	b, err := DefaultBundle()
	if err != nil {
		return nil, unavailable(err)
	}
	emb, err := b.LexicalEmbedder()
	if err != nil {
		return nil, unavailable(err)
	}
	return NewRouter(b, emb, cfg)
}
