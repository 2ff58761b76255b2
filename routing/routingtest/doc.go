// Package routingtest holds in-memory fakes of routing's stores and
// summarizer, a controllable clock, and contract suites that every PinStore
// and CacheStore implementation runs in its own tests.
//
// Ring: test support (imported by tests only). No I/O.
package routingtest
