// Package credits is hosted billing (SPEC 9, issue 12): operators (a
// platform role apart from organisation roles), plans (which providers and
// models may run on platform credentials, a price multiplier on catalog
// prices, included monthly credit, a fee on BYOK traffic), and prepaid
// credit: an append-only ledger in integer micro-dollars whose sum is the
// balance, with reservations held before a platform-credential call and
// settled or released after it.
//
// Ring: domain. Types, validation and pricing rules, and the Store port its
// adapter (credits/sqlstore) implements; no I/O of its own.
//
// The overdraft bound: a reservation is taken only when balance minus what
// is already reserved covers it (one conditional update in the shared
// database, so every replica sees the same numbers), and a settlement debits
// the actual cost. The balance therefore goes below zero only by the sum,
// over settled calls, of what a call cost beyond its reservation. The
// gateway reserves input at one token per prompt byte (byte-level
// tokenizers never produce more tokens than bytes) at the dearer of the
// input and cache-write prices, and output at the request's max tokens (the
// model's maximum when unset): for an upstream whose reported usage stays
// within those, the bound is 0 and the balance never goes negative. A hold
// older than StaleAfter (its replica died) is released; a call that still
// settles after that is debited without a hold, which the bound does not
// cover.
package credits
