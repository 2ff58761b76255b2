package dispatch

import "time"

// backoff is the delay before same-target retry n (0-based): BackoffBase*2^n
// plus a jitter of up to half of that.
func backoff(base time.Duration, n int, r Rand) time.Duration {
	d := base << n
	return d + time.Duration(r.Float64()*float64(d)/2)
}

// retryDelay decides whether a failed attempt may be retried on its own target
// and after how long. single reports whether the target is the only one the
// walk can use (SPEC §7: same-target retries only on a single-target plan);
// it is asked only for a failure that could be retried. n is how many retries
// this target already had, elapsed the time since the operation started, left
// the attempts still allowed.
func (e *Executor) retryDelay(f failure, single func() bool, n int, elapsed time.Duration, left int) (time.Duration, bool) {
	if f.terminal || !transient(f.reason) || left <= 0 {
		return 0, false
	}
	if !single() {
		return 0, false
	}
	if n >= e.cfg.MaxSameTargetRetries {
		return 0, false
	}
	d := backoff(e.cfg.BackoffBase, n, e.rand)
	if f.retryAfter > d {
		d = f.retryAfter
	}
	if elapsed+d > e.cfg.RetryBudget {
		return 0, false
	}
	return d, true
}
