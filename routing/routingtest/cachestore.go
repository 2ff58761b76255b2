package routingtest

import (
	"context"
	"errors"
	"time"

	"github.com/heddle-gw/heddle/routing"
)

// ErrStoreDown is what FailingCacheStore returns.
var ErrStoreDown = errors.New("routingtest: store down")

// FailingCacheStore is a routing.CacheStore whose every call fails with
// ErrStoreDown, for fail-open tests of callers.
type FailingCacheStore struct{}

var _ routing.CacheStore = FailingCacheStore{}

// Get fails.
func (FailingCacheStore) Get(context.Context, string) ([]byte, bool, error) {
	return nil, false, ErrStoreDown
}

// Set fails.
func (FailingCacheStore) Set(context.Context, string, []byte, time.Duration) error {
	return ErrStoreDown
}

// Neighbors fails.
func (FailingCacheStore) Neighbors(context.Context, string) ([]routing.Neighbor, error) {
	return nil, ErrStoreDown
}

// AddNeighbor fails.
func (FailingCacheStore) AddNeighbor(context.Context, string, routing.Neighbor, time.Duration, int) error {
	return ErrStoreDown
}
