package tenancy

import (
	"context"
	"errors"
	"fmt"
	"sync"
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

// maxWindowKeys bounds the keys a MemoryKeyLimiter tracks.
const maxWindowKeys = 100_000

type keyWindow struct {
	start    time.Time
	requests int64
	tokens   int64
}

// MemoryKeyLimiter is the in-process KeyLimiter of a single replica (no
// Redis). It holds one window per key and never fails. Memory is bounded:
// at 100,000 keys, windows of past minutes are dropped; if every key is
// active in the current minute they are all dropped (which can let those
// keys exceed their limits once, rather than grow without bound). Safe for
// concurrent use.
type MemoryKeyLimiter struct {
	mu   sync.Mutex
	keys map[string]*keyWindow
	max  int
}

var _ KeyLimiter = (*MemoryKeyLimiter)(nil)

// NewMemoryKeyLimiter returns an empty in-process limiter.
func NewMemoryKeyLimiter() *MemoryKeyLimiter {
	return &MemoryKeyLimiter{keys: make(map[string]*keyWindow), max: maxWindowKeys}
}

// window returns keyID's window for now, starting a fresh one when the
// stored one is over. Callers hold mu.
func (m *MemoryKeyLimiter) window(keyID string, now time.Time) *keyWindow {
	start, _ := MinuteWindow(now)
	w := m.keys[keyID]
	if w == nil {
		if len(m.keys) >= m.max {
			m.sweep(start)
		}
		w = &keyWindow{start: start}
		m.keys[keyID] = w
	} else if start.After(w.start) {
		*w = keyWindow{start: start}
	}
	return w
}

func (m *MemoryKeyLimiter) sweep(current time.Time) {
	for k, w := range m.keys {
		if w.start.Before(current) {
			delete(m.keys, k)
		}
	}
	if len(m.keys) >= m.max {
		clear(m.keys)
	}
}

func retryAfter(w *keyWindow, now time.Time) time.Duration {
	return w.start.Add(time.Minute).Sub(now)
}

// Allow counts a request unless keyID already made rpm in this window.
func (m *MemoryKeyLimiter) Allow(_ context.Context, keyID string, rpm int, now time.Time) (bool, time.Duration, error) {
	if rpm <= 0 {
		return true, 0, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	w := m.window(keyID, now)
	if w.requests >= int64(rpm) {
		return false, retryAfter(w, now), nil
	}
	w.requests++
	return true, 0, nil
}

// AddTokens adds tokens to keyID's current window; zero or less adds nothing.
func (m *MemoryKeyLimiter) AddTokens(_ context.Context, keyID string, tokens int, now time.Time) error {
	if tokens <= 0 {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.window(keyID, now).tokens += int64(tokens)
	return nil
}

// TokensOK reports whether keyID used fewer than tpm tokens this window.
func (m *MemoryKeyLimiter) TokensOK(_ context.Context, keyID string, tpm int, now time.Time) (bool, time.Duration, error) {
	if tpm <= 0 {
		return true, 0, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	w := m.keys[keyID]
	start, _ := MinuteWindow(now)
	if w == nil || start.After(w.start) || w.tokens < int64(tpm) {
		return true, 0, nil
	}
	return false, retryAfter(w, now), nil
}

// Len returns how many keys' windows are held (for metrics and tests).
func (m *MemoryKeyLimiter) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.keys)
}
