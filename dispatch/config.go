package dispatch

import (
	"errors"
	"fmt"
	"time"
)

// Config tunes the executor. A zero field takes the default written beside it.
// A negative one is an error for Validate (which app calls at boot) and falls
// back to the default in WithDefaults.
type Config struct {
	// MaxAttempts bounds the real upstream attempts of one operation, same-target
	// retries included, when the plan does not say (default 3).
	MaxAttempts int
	// MaxSameTargetRetries bounds retries in place after a transient error
	// (default 2).
	MaxSameTargetRetries int
	// BackoffBase is the first retry delay; retry n waits BackoffBase*2^n plus up
	// to half of that again as jitter (default 250ms).
	BackoffBase time.Duration
	// RetryBudget bounds the wall time from the start of an operation within
	// which a same-target retry may still start (default 10s).
	RetryBudget time.Duration
	// FirstByteTimeout bounds the wait for the first byte of a streamed answer
	// (default 30s).
	FirstByteTimeout time.Duration
	// NonStreamTimeout bounds the wait for the first byte of a non-streaming
	// answer, which arrives only once the model has finished (default 10m).
	NonStreamTimeout time.Duration
	// StreamIdleTimeout bounds the silence between two reads of an answer body
	// once it has started (default 60s).
	StreamIdleTimeout time.Duration
	// MaxResponseBytes bounds a non-streaming answer body (default 32 MiB).
	MaxResponseBytes int64

	// Breaker configures the circuit breaker per (target, credential).
	Breaker BreakerConfig

	// OrgConcurrency caps the operations of one organisation in flight at once
	// (default 1024: hundreds of agent streams of one team flow at the
	// upstream's pace); Meta.OrgConcurrency may set an organisation's own.
	OrgConcurrency int
	// BindingConcurrency caps the attempts in flight on one (target, credential)
	// pair (default 1024); when it binds, the organisations waiting are served
	// in turn, each in arrival order.
	BindingConcurrency int
	// CapWait bounds how long an operation waits for a free slot before it gets
	// ErrOverloaded (org cap) or skips the target (binding cap) (default 5s).
	CapWait time.Duration

	// IdempotencyWindow is how long a finished non-streaming result is kept for
	// a repeat with the same Idempotency-Key (default 60s).
	IdempotencyWindow time.Duration
}

// BreakerConfig configures circuit breakers. Zero fields take the defaults
// beside them.
type BreakerConfig struct {
	// ConsecutiveFailures opens the breaker after this many failures in a row
	// (default 5).
	ConsecutiveFailures int
	// FailureRatio opens the breaker when at least this share of the attempts in
	// Window failed (default 0.5), once MinRequests attempts were seen.
	FailureRatio float64
	// MinRequests is the sample size the ratio rule needs (default 20).
	MinRequests int
	// Window is the sliding window of the ratio rule (default 60s).
	Window time.Duration
	// Cooldown is how long an open breaker skips its target before it lets one
	// half-open probe through (default 30s).
	Cooldown time.Duration
}

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	setInt(&c.MaxAttempts, 3)
	setInt(&c.MaxSameTargetRetries, 2)
	setDur(&c.BackoffBase, 250*time.Millisecond)
	setDur(&c.RetryBudget, 10*time.Second)
	setDur(&c.FirstByteTimeout, 30*time.Second)
	setDur(&c.NonStreamTimeout, 10*time.Minute)
	setDur(&c.StreamIdleTimeout, 60*time.Second)
	if c.MaxResponseBytes <= 0 {
		c.MaxResponseBytes = 32 << 20
	}
	setInt(&c.OrgConcurrency, 1024)
	setInt(&c.BindingConcurrency, 1024)
	setDur(&c.CapWait, 5*time.Second)
	setDur(&c.IdempotencyWindow, 60*time.Second)
	c.Breaker = c.Breaker.WithDefaults()
	return c
}

// WithDefaults returns b with every zero field set to its default.
func (b BreakerConfig) WithDefaults() BreakerConfig {
	setInt(&b.ConsecutiveFailures, 5)
	if b.FailureRatio <= 0 || b.FailureRatio > 1 {
		b.FailureRatio = 0.5
	}
	setInt(&b.MinRequests, 20)
	setDur(&b.Window, 60*time.Second)
	setDur(&b.Cooldown, 30*time.Second)
	return b
}

// Validate reports every invalid field at once.
func (c Config) Validate() error {
	var errs []error
	neg := func(name string, v int64) {
		if v < 0 {
			errs = append(errs, fmt.Errorf("dispatch: config %s must not be negative", name))
		}
	}
	neg("MaxAttempts", int64(c.MaxAttempts))
	neg("MaxSameTargetRetries", int64(c.MaxSameTargetRetries))
	neg("BackoffBase", int64(c.BackoffBase))
	neg("RetryBudget", int64(c.RetryBudget))
	neg("FirstByteTimeout", int64(c.FirstByteTimeout))
	neg("NonStreamTimeout", int64(c.NonStreamTimeout))
	neg("StreamIdleTimeout", int64(c.StreamIdleTimeout))
	neg("MaxResponseBytes", c.MaxResponseBytes)
	neg("OrgConcurrency", int64(c.OrgConcurrency))
	neg("BindingConcurrency", int64(c.BindingConcurrency))
	neg("CapWait", int64(c.CapWait))
	neg("IdempotencyWindow", int64(c.IdempotencyWindow))
	b := c.Breaker
	neg("Breaker.ConsecutiveFailures", int64(b.ConsecutiveFailures))
	neg("Breaker.MinRequests", int64(b.MinRequests))
	neg("Breaker.Window", int64(b.Window))
	neg("Breaker.Cooldown", int64(b.Cooldown))
	if b.FailureRatio < 0 || b.FailureRatio > 1 {
		errs = append(errs, errors.New("dispatch: config Breaker.FailureRatio must be within [0, 1]"))
	}
	return errors.Join(errs...)
}

func setInt(p *int, def int) {
	if *p <= 0 {
		*p = def
	}
}

func setDur(p *time.Duration, def time.Duration) {
	if *p <= 0 {
		*p = def
	}
}
