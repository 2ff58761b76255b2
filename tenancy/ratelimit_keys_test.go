package tenancy_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/tenancy"
)

var windowBase = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// countingLimiter is the simplest KeyLimiter of one window (the tests stay
// in windowBase's minute): counts in maps, never failing. The real one,
// admission.RateCounters, plays the full contract in admission's tests.
type countingLimiter struct{ requests, tokens map[string]int }

func newCountingLimiter() *countingLimiter {
	return &countingLimiter{requests: map[string]int{}, tokens: map[string]int{}}
}

func (c *countingLimiter) Allow(_ context.Context, key string, rpm int, now time.Time) (bool, time.Duration, error) {
	if rpm <= 0 {
		return true, 0, nil
	}
	_, end := tenancy.MinuteWindow(now)
	if c.requests[key] >= rpm {
		return false, end.Sub(now), nil
	}
	c.requests[key]++
	return true, 0, nil
}

func (c *countingLimiter) AddTokens(_ context.Context, key string, n int, _ time.Time) error {
	c.tokens[key] += n
	return nil
}

func (c *countingLimiter) TokensOK(_ context.Context, key string, tpm int, now time.Time) (bool, time.Duration, error) {
	_, end := tenancy.MinuteWindow(now)
	if tpm > 0 && c.tokens[key] >= tpm {
		return false, end.Sub(now), nil
	}
	return true, 0, nil
}

func TestMinuteWindow(t *testing.T) {
	at := time.Date(2026, 11, 29, 13, 7, 59, 999, time.FixedZone("x", 3600))
	start, end := tenancy.MinuteWindow(at)
	if want := time.Date(2026, 11, 29, 12, 7, 0, 0, time.UTC); !start.Equal(want) || start.Location() != time.UTC ||
		!end.Equal(want.Add(time.Minute)) {
		t.Fatalf("MinuteWindow = %v, %v", start, end)
	}
}

// brokenLimiter fails every call, as a KeyLimiter whose Redis is down.
type brokenLimiter struct{}

func (brokenLimiter) Allow(context.Context, string, int, time.Time) (bool, time.Duration, error) {
	return false, 0, fmt.Errorf("redis: %w", tenancy.ErrLimiterUnavailable)
}
func (brokenLimiter) AddTokens(context.Context, string, int, time.Time) error {
	return fmt.Errorf("redis: %w", tenancy.ErrLimiterUnavailable)
}
func (brokenLimiter) TokensOK(context.Context, string, int, time.Time) (bool, time.Duration, error) {
	return false, 0, fmt.Errorf("redis: %w", tenancy.ErrLimiterUnavailable)
}

func TestEnforceKeyLimits(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		lim     tenancy.Limits
		prep    func(l tenancy.KeyLimiter)
		limiter tenancy.KeyLimiter
		retry   time.Duration // > 0: want a *RateLimitError with it
		want    error
	}{
		{"no limits", tenancy.Limits{}, nil, nil, 0, nil},
		{"under both", tenancy.Limits{RPM: 2, TPM: 100}, func(l tenancy.KeyLimiter) {
			l.AddTokens(ctx, "k", 99, windowBase)
		}, nil, 0, nil},
		{"rpm spent", tenancy.Limits{RPM: 1}, func(l tenancy.KeyLimiter) {
			l.Allow(ctx, "k", 1, windowBase)
		}, nil, 50 * time.Second, tenancy.ErrRateLimited},
		{"tpm spent", tenancy.Limits{RPM: 5, TPM: 100}, func(l tenancy.KeyLimiter) {
			l.AddTokens(ctx, "k", 100, windowBase)
		}, nil, 50 * time.Second, tenancy.ErrRateLimited},
		{"limiter down fails closed", tenancy.Limits{RPM: 5}, nil, brokenLimiter{}, 0, tenancy.ErrLimiterUnavailable},
		{"limiter down on tpm fails closed", tenancy.Limits{TPM: 5}, nil, brokenLimiter{}, 0, tenancy.ErrLimiterUnavailable},
		{"limiter down, no limits: not asked", tenancy.Limits{}, nil, brokenLimiter{}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := tt.limiter
			if l == nil {
				l = newCountingLimiter()
			}
			if tt.prep != nil {
				tt.prep(l)
			}
			err := tenancy.EnforceKeyLimits(ctx, l, "k", tt.lim, windowBase.Add(10*time.Second))
			if !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
				t.Fatalf("EnforceKeyLimits = %v, want %v", err, tt.want)
			}
			var rl *tenancy.RateLimitError
			if errors.As(err, &rl) != (tt.retry > 0) || (rl != nil && rl.RetryAfter != tt.retry) {
				t.Fatalf("EnforceKeyLimits = %v, want retry after %s", err, tt.retry)
			}
		})
	}
	// A request refused for tokens does not use up a request slot.
	l := newCountingLimiter()
	l.AddTokens(ctx, "k", 10, windowBase)
	lim := tenancy.Limits{RPM: 1, TPM: 10}
	for range 3 {
		if err := tenancy.EnforceKeyLimits(ctx, l, "k", lim, windowBase); !errors.Is(err, tenancy.ErrRateLimited) {
			t.Fatalf("over tpm: %v", err)
		}
	}
	if ok, _, _ := l.Allow(ctx, "k", 1, windowBase); !ok {
		t.Fatal("TPM refusals used up the RPM slot")
	}
}
