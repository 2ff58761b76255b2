// Package billingtest holds in-memory fakes of billing's stores (spending
// counters and organisation budget settings) for other packages' tests, and
// StoreSuite, the store contract that the fakes and billing/sqlstore both
// pass.
//
// Ring: test support. No I/O.
package billingtest
