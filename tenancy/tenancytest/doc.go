// Package tenancytest provides an in-memory tenancy.Store for other packages'
// tests, and StoreSuite, the contract every tenancy.Store implementation must
// pass (run against this fake and against tenancy/sqlstore on SQLite and
// Postgres).
//
// Ring: test support. In-memory only; no I/O.
package tenancytest
