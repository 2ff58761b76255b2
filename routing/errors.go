package routing

import (
	"errors"
	"fmt"
)

// Sentinel errors.
var (
	// ErrUnavailable means the router cannot decide and the caller must fail
	// closed (503 routing.unavailable). It is always wrapped together with the
	// cause: ErrNoBundle, ErrEmbedderMismatch, ErrEmbed, ErrEmbedTimeout,
	// ErrSettingsUnavailable or ErrNoEligible.
	ErrUnavailable = errors.New("routing: unavailable")
	// ErrNoBundle means no bundle is loaded.
	ErrNoBundle = errors.New("routing: no bundle")
	// ErrEmbedderMismatch means the bundle was trained with another embedder
	// (id, dimension or fingerprint differ).
	ErrEmbedderMismatch = errors.New("routing: bundle embedder does not match the running embedder")
	// ErrEmbed means the embedder failed.
	ErrEmbed = errors.New("routing: embed failed")
	// ErrEmbedTimeout means the embedder did not answer within its timeout.
	ErrEmbedTimeout = errors.New("routing: embed timed out")
	// ErrSettingsUnavailable means an organisation's routing settings (its
	// allow and deny lists, aliases) could not be read; no model may be
	// chosen without them, explicit or routed.
	ErrSettingsUnavailable = errors.New("routing: organisation settings unavailable")
	// ErrNoEligible means no eligible model is known to the bundle.
	ErrNoEligible = errors.New("routing: no eligible model")
	// ErrBundle means a bundle file is malformed or of an unknown format.
	ErrBundle = errors.New("routing: invalid bundle")
	// ErrData means training or evaluation data is malformed or empty.
	ErrData = errors.New("routing: invalid data")
	// ErrUsage means a command line is wrong.
	ErrUsage = errors.New("routing: usage")
)

// unavailable wraps cause so that errors.Is matches both ErrUnavailable and it.
func unavailable(cause error) error {
	return fmt.Errorf("%w: %w", ErrUnavailable, cause)
}
