package dispatch_test

import (
	"strings"
	"testing"
	"time"

	"github.com/heddle-gw/heddle/dispatch"
)

func TestConfigDefaults(t *testing.T) {
	c := dispatch.Config{MaxAttempts: 5}.WithDefaults()
	want := dispatch.Config{
		MaxAttempts: 5, MaxSameTargetRetries: 2, BackoffBase: 250 * time.Millisecond, RetryBudget: 10 * time.Second,
		FirstByteTimeout: 30 * time.Second, NonStreamTimeout: 10 * time.Minute, StreamIdleTimeout: time.Minute,
		MaxResponseBytes: 32 << 20, OrgConcurrency: 1024, BindingConcurrency: 1024, CapWait: 5 * time.Second,
		IdempotencyWindow: time.Minute,
		Breaker: dispatch.BreakerConfig{ConsecutiveFailures: 5, FailureRatio: 0.5, MinRequests: 20,
			Window: time.Minute, Cooldown: 30 * time.Second},
	}
	if c != want {
		t.Fatalf("defaults\n got %+v\nwant %+v", c, want)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	bad := dispatch.Config{MaxAttempts: -1, RetryBudget: -time.Second, Breaker: dispatch.BreakerConfig{FailureRatio: 1.5}}
	err := bad.Validate()
	if err == nil {
		t.Fatal("want errors")
	}
	for _, field := range []string{"MaxAttempts", "RetryBudget", "FailureRatio"} {
		if !strings.Contains(err.Error(), field) {
			t.Errorf("error does not name %s: %v", field, err)
		}
	}
	if strings.Contains(err.Error(), "CapWait") {
		t.Errorf("error names a valid field: %v", err)
	}
}
