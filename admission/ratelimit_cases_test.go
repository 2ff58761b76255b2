package admission_test

import (
	"context"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/admission"
	"github.com/heddle-gw/heddle/billing/billingtest"
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

// TestRateCountersLimiterCases plays the KeyLimiter contract's cases
// against one replica's RateCounters (its own counts are seen at once, with
// no sync).
func TestRateCountersLimiterCases(t *testing.T) {
	runLimiterCases(t, func(*testing.T) tenancy.KeyLimiter {
		return admission.NewRateCounters(billingtest.NewMemory(nil), 0, func() time.Time { return windowBase })
	})
}
