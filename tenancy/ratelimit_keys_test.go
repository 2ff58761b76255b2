package tenancy_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/tenancy"
)

var windowBase = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// limiterStep is one call on a KeyLimiter at an offset from windowBase.
type limiterStep struct {
	at    time.Duration
	key   string
	op    string // "allow", "tokens" (TokensOK) or "add" (AddTokens)
	limit int    // rpm, tpm, or the tokens to add
	ok    bool
	retry time.Duration
}

var limiterCases = []struct {
	name  string
	steps []limiterStep
}{
	{"rpm fills then refuses to the window's end", []limiterStep{
		{0, "k1", "allow", 2, true, 0},
		{10 * time.Second, "k1", "allow", 2, true, 0},
		{15 * time.Second, "k1", "allow", 2, false, 45 * time.Second},
		{59 * time.Second, "k1", "allow", 2, false, time.Second},
		{60 * time.Second, "k1", "allow", 2, true, 0},
	}},
	{"keys are separate", []limiterStep{
		{0, "k1", "allow", 1, true, 0},
		{0, "k2", "allow", 1, true, 0},
		{time.Second, "k1", "allow", 1, false, 59 * time.Second},
	}},
	{"zero and negative mean unlimited", []limiterStep{
		{0, "k1", "allow", 0, true, 0},
		{0, "k1", "allow", 0, true, 0},
		{0, "k1", "allow", -1, true, 0},
		{0, "k1", "add", 1000, true, 0},
		{0, "k1", "tokens", 0, true, 0},
	}},
	{"tpm refuses at and over the limit", []limiterStep{
		{0, "k1", "tokens", 100, true, 0},
		{time.Second, "k1", "add", 99, true, 0},
		{2 * time.Second, "k1", "tokens", 100, true, 0},
		{3 * time.Second, "k1", "add", 1, true, 0},
		{20 * time.Second, "k1", "tokens", 100, false, 40 * time.Second},
		{21 * time.Second, "k1", "add", 500, true, 0},
		{30 * time.Second, "k1", "tokens", 100, false, 30 * time.Second},
		{30 * time.Second, "k2", "tokens", 100, true, 0},
		{61 * time.Second, "k1", "tokens", 100, true, 0},
	}},
	{"tokens and requests share the window but not the count", []limiterStep{
		{0, "k1", "add", 5, true, 0},
		{0, "k1", "allow", 1, true, 0},
		{0, "k1", "tokens", 6, true, 0},
		{0, "k1", "allow", 1, false, time.Minute},
		{2 * time.Minute, "k1", "allow", 1, true, 0},
		{2 * time.Minute, "k1", "tokens", 1, true, 0},
	}},
	{"tokens added after the minute count in the next window", []limiterStep{
		{59 * time.Second, "k1", "add", 10, true, 0},
		{60 * time.Second, "k1", "add", 10, true, 0},
		{61 * time.Second, "k1", "tokens", 10, false, 59 * time.Second},
		{61 * time.Second, "k1", "tokens", 11, true, 0},
	}},
}

// runLimiterCases plays limiterCases against limiters made by newLimiter
// (one per case).
func runLimiterCases(t *testing.T, newLimiter func(t *testing.T) tenancy.KeyLimiter) {
	for _, tc := range limiterCases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			l := newLimiter(t)
			for i, s := range tc.steps {
				now := windowBase.Add(s.at)
				var ok bool
				var retry time.Duration
				var err error
				switch s.op {
				case "allow":
					ok, retry, err = l.Allow(ctx, s.key, s.limit, now)
				case "tokens":
					ok, retry, err = l.TokensOK(ctx, s.key, s.limit, now)
				case "add":
					ok, err = true, l.AddTokens(ctx, s.key, s.limit, now)
				}
				if err != nil || ok != s.ok || retry != s.retry {
					t.Fatalf("step %d (%s %s %d at +%s) = %v, %s, %v; want %v, %s",
						i, s.op, s.key, s.limit, s.at, ok, retry, err, s.ok, s.retry)
				}
			}
		})
	}
}

func TestMemoryKeyLimiter(t *testing.T) {
	runLimiterCases(t, func(*testing.T) tenancy.KeyLimiter { return tenancy.NewMemoryKeyLimiter() })
}

func TestMinuteWindow(t *testing.T) {
	at := time.Date(2026, 11, 29, 13, 7, 59, 999, time.FixedZone("x", 3600))
	start, end := tenancy.MinuteWindow(at)
	if want := time.Date(2026, 11, 29, 12, 7, 0, 0, time.UTC); !start.Equal(want) || start.Location() != time.UTC ||
		!end.Equal(want.Add(time.Minute)) {
		t.Fatalf("MinuteWindow = %v, %v", start, end)
	}
}

func TestMemoryKeyLimiterConcurrent(t *testing.T) {
	l := tenancy.NewMemoryKeyLimiter()
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				ok, _, _ := l.Allow(context.Background(), "k", 100, windowBase)
				l.AddTokens(context.Background(), "k", 1, windowBase)
				if ok {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if allowed != 100 {
		t.Fatalf("allowed %d of 400 at rpm 100", allowed)
	}
	if ok, _, _ := l.TokensOK(context.Background(), "k", 400, windowBase); ok {
		t.Fatal("400 tokens added concurrently were not all counted")
	}
	if ok, _, _ := l.TokensOK(context.Background(), "k", 401, windowBase); !ok {
		t.Fatal("more than 400 tokens counted")
	}
}

func TestMemoryKeyLimiterBoundedMemory(t *testing.T) {
	ctx := context.Background()
	l := tenancy.NewMemoryKeyLimiter()
	for i := range 100_000 {
		l.Allow(ctx, fmt.Sprint("old", i), 1, windowBase)
	}
	if l.Len() != 100_000 {
		t.Fatalf("Len = %d", l.Len())
	}
	// A new minute: past windows are swept when a new key arrives.
	next := windowBase.Add(time.Minute)
	if ok, _, _ := l.Allow(ctx, "new", 1, next); !ok || l.Len() != 1 {
		t.Fatalf("after the sweep: ok=%v Len=%d", ok, l.Len())
	}
	// Every key active in this minute: memory is still capped.
	for i := range 100_001 {
		l.Allow(ctx, fmt.Sprint("now", i), 1, next)
	}
	if n := l.Len(); n > 100_000 || n == 0 {
		t.Fatalf("Len = %d, want at most 100000", n)
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
				l = tenancy.NewMemoryKeyLimiter()
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
	l := tenancy.NewMemoryKeyLimiter()
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
