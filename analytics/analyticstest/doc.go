// Package analyticstest provides an in-memory analytics Store and Reader
// that can be made to fail or block, for tests of the Writer and of other
// packages, and the contract suite (RunContract) every Store and Reader
// implementation must pass.
//
// Ring: test support. No I/O.
package analyticstest
