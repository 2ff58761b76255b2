// Package rings holds the tests that enforce STYLE.md's house rules over the
// whole module, test files included: the import rings, the provider boundary
// (only dispatch and app import dispatch/provider/...), and no file, network,
// process or environment I/O in a kernel or domain root. The few allowed
// breaks are one list, each with its reason (exceptions_test.go). It has no
// code of its own.
package rings
