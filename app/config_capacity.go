package app

import (
	"fmt"
	"time"
)

// CapacityConfig is the operator's concurrency caps (dispatch.Config) and
// how replicas reconcile budget spend (billing.SpendBuffer).
type CapacityConfig struct {
	// OrgConcurrency is HEDDLE_ORG_CONCURRENCY: operations of one
	// organisation in flight per replica, default 1024; an organisation's
	// own setting (admin API, console budgets page) overrides it.
	OrgConcurrency int
	// BindingConcurrency is HEDDLE_BINDING_CONCURRENCY: upstream attempts
	// in flight per (target, credential) per replica, default 1024; when it
	// binds, organisations waiting on the binding are served in turn.
	BindingConcurrency int
	// CapWait is HEDDLE_CAP_WAIT: how long a request waits for a slot before
	// a 503 dispatch.overloaded (or the next target), default 5s.
	CapWait time.Duration
	// SpendSync is HEDDLE_SPEND_SYNC_INTERVAL: how often a replica writes
	// the spend it summed and reads back every counter it checks, default 1s.
	SpendSync time.Duration
	// SpendStaleAfter is HEDDLE_SPEND_STALE_AFTER: a replica whose last
	// successful read of the shared spend is older than this reads the
	// store on each budget check, refusing with 503 billing.unavailable
	// when it cannot, default 30s.
	SpendStaleAfter time.Duration
}

func loadCapacity(r *reader) CapacityConfig {
	return CapacityConfig{
		OrgConcurrency:     r.int("HEDDLE_ORG_CONCURRENCY", 1024),
		BindingConcurrency: r.int("HEDDLE_BINDING_CONCURRENCY", 1024),
		CapWait:            r.duration("HEDDLE_CAP_WAIT", 5*time.Second),
		SpendSync:          r.duration("HEDDLE_SPEND_SYNC_INTERVAL", time.Second),
		SpendStaleAfter:    r.duration("HEDDLE_SPEND_STALE_AFTER", 30*time.Second),
	}
}

func (c CapacityConfig) validate() []error {
	var errs []error
	if c.OrgConcurrency < 1 {
		errs = append(errs, fmt.Errorf("HEDDLE_ORG_CONCURRENCY: %d; want at least 1", c.OrgConcurrency))
	}
	if c.BindingConcurrency < 1 {
		errs = append(errs, fmt.Errorf("HEDDLE_BINDING_CONCURRENCY: %d; want at least 1", c.BindingConcurrency))
	}
	if c.CapWait <= 0 {
		errs = append(errs, fmt.Errorf("HEDDLE_CAP_WAIT: %s; want more than 0", c.CapWait))
	}
	if c.SpendSync < 10*time.Millisecond {
		errs = append(errs, fmt.Errorf("HEDDLE_SPEND_SYNC_INTERVAL: %s; want at least 10ms", c.SpendSync))
	}
	if c.SpendStaleAfter < 2*c.SpendSync {
		errs = append(errs, fmt.Errorf("HEDDLE_SPEND_STALE_AFTER: %s; want at least twice HEDDLE_SPEND_SYNC_INTERVAL (%s)", c.SpendStaleAfter, c.SpendSync))
	}
	return errs
}
