package tenancy

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrLimiterUnavailable means a KeyLimiter could not reach its shared state
// (Redis). Money and security paths fail closed: the data plane should refuse
// the request (503) rather than serve it unlimited.
var ErrLimiterUnavailable = errors.New("tenancy: rate limiter unavailable")

// KeyLimiter enforces an rk_ key's requests and tokens per minute in fixed
// one-minute windows (MinuteWindow). A limit of zero or less means
// unlimited. retryAfter, when refused, is the time left in the window. All
// methods block on the limiter's store; a store failure is an error wrapping
// ErrLimiterUnavailable (never a silent allow).
type KeyLimiter interface {
	// Allow counts one request for keyID and reports whether it fits in rpm.
	Allow(ctx context.Context, keyID string, rpm int, now time.Time) (ok bool, retryAfter time.Duration, err error)
	// AddTokens counts tokens used by keyID in the window containing now.
	AddTokens(ctx context.Context, keyID string, tokens int, now time.Time) error
	// TokensOK reports whether keyID's tokens in the current window are still
	// under tpm; it counts nothing.
	TokensOK(ctx context.Context, keyID string, tpm int, now time.Time) (ok bool, retryAfter time.Duration, err error)
}

// MinuteWindow returns the fixed one-minute window (UTC, aligned to the
// minute) that contains now: [start, end).
func MinuteWindow(now time.Time) (start, end time.Time) {
	start = now.UTC().Truncate(time.Minute)
	return start, start.Add(time.Minute)
}

// EnforceKeyLimits checks a key's TPM (tokens already used this window), then
// counts the request against its RPM. A refusal is a *RateLimitError
// (errors.Is ErrRateLimited, 429 with Retry-After); a limiter failure wraps
// ErrLimiterUnavailable. The TPM check comes first so a request refused for
// tokens does not use up a request slot.
func EnforceKeyLimits(ctx context.Context, l KeyLimiter, keyID string, lim Limits, now time.Time) error {
	if lim.TPM > 0 {
		ok, wait, err := l.TokensOK(ctx, keyID, lim.TPM, now)
		if err != nil {
			return fmt.Errorf("tenancy: key tokens per minute: %w", err)
		}
		if !ok {
			return &RateLimitError{RetryAfter: wait}
		}
	}
	if lim.RPM > 0 {
		ok, wait, err := l.Allow(ctx, keyID, lim.RPM, now)
		if err != nil {
			return fmt.Errorf("tenancy: key requests per minute: %w", err)
		}
		if !ok {
			return &RateLimitError{RetryAfter: wait}
		}
	}
	return nil
}
