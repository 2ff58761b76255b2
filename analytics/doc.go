// Package analytics records what Heddle did: one row per upstream attempt and one
// per request. A Writer batches rows, retries with backoff, spills to local disk
// segments when the store is slow or down and replays them in order; it never
// blocks a request. Stores live in adapters: analytics/clickhouse and
// analytics/sqlstore (the embedded default, in the app database).
//
// Contents is the opt-in storage of prompt and response content (SPEC 8):
// organisations' privacy settings and their requests' content, sealed
// before it reaches the store (always the app database) and deleted once
// its retention ends.
//
// Ring: domain. The package root does no network I/O; the Writer's spill
// directory (segments, journal and the flock that keeps it to one Writer)
// is the one local-disk concern it owns.
package analytics
