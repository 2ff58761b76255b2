// Package dispatch is Heddle's single execution boundary between a resolved plan
// and the upstream providers: plan walk, same-target retries, failover, the commit
// gate, the target guard, circuit breakers, concurrency caps, the optimistic
// target cache, idempotency and ordered attempt events.
//
// Ring: domain. The package root does no I/O of its own; it calls providers only
// through the Provider interface. Provider adapters live in dispatch/provider/<name>
// and only this package tree may import them (a test enforces it).
package dispatch
