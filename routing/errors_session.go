package routing

import "errors"

// Sentinel errors of the session side of routing: pins, handover and the
// semantic cache.
var (
	// ErrPinKey means a pin key lacks a field every pin must be scoped by
	// (organisation, key, session or role).
	ErrPinKey = errors.New("routing: invalid pin key")
	// ErrCacheScope means a cache lookup or store lacks its partition
	// (organisation, key or a valid wire format).
	ErrCacheScope = errors.New("routing: invalid cache scope")
	// ErrCacheStore means the cache's storage failed; the caller should serve
	// the request as a miss.
	ErrCacheStore = errors.New("routing: cache store failed")
	// ErrCacheEntry means a stored cache entry could not be decoded.
	ErrCacheEntry = errors.New("routing: invalid cache entry")
	// ErrSummary means the handover summarizer failed, timed out or returned
	// nothing; the history is kept unchanged.
	ErrSummary = errors.New("routing: handover summary failed")
)
